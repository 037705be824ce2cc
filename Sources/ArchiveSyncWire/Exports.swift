// The wire shapes carry the engine's sync types (FavoriteChange, DeviceID, …).
@_exported public import ArchiveStorage
