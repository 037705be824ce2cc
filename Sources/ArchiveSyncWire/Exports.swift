// The wire shapes carry the engine's sync types (FavoriteChange, DeviceID, …) and dates.
@_exported public import ArchiveStorage
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
