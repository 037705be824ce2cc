// The search semantics the catalog's API is defined by (`SearchKeyword`), re-exported
// so that whoever imports `ArchiveAPI` reads a keyword as the catalog does.
@_exported public import ArchiveSearch
