/// A request the archive storage refuses before touching the database.
public enum ArchiveStorageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An object's field breaks a rule of ``StoredArchiveObject/validate()``.
    /// `index` is the position in a bulk insert, when the object came from one.
    case invalidObject(index: Int?, id: Int, field: String, reason: String)
    /// A page was asked with a limit outside `1...StoredArchivePage.maximumLimit`.
    case invalidPageLimit(Int)
    /// A page cursor that is not of the form `STOREDAT_MS:ID`.
    case invalidCursor(String)

    /// A message a person can act on.
    public var description: String {
        switch self {
        case .invalidObject(let index, let id, let field, let reason):
            let position = index.map { "record \($0) " } ?? ""
            return "\(position)(id \(id)): field '\(field)' \(reason); nothing was written"
        case .invalidPageLimit(let limit):
            return "page limit \(limit) is out of range: use 1 to \(StoredArchivePage.maximumLimit)"
        case .invalidCursor(let text):
            return "'\(text)' is not a page cursor: pass the cursor printed with the previous page (STOREDAT_MS:ID)"
        }
    }
}
