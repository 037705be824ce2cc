// The names both fronts need, re-exported so that a front imports `ArchiveFront`
// plus its UI and nothing else.
@_exported public import ArchiveAPI
@_exported public import ArchiveCommandLine
@_exported public import ArchiveCore
@_exported public import ArchiveSearch
@_exported public import ArchiveStorage
@_exported public import ArchiveSyncClient
@_exported public import ArchiveSyncModel
@_exported public import ArchiveSyncWire
@_exported public import ArchiveTransfer
@_exported public import Redux
