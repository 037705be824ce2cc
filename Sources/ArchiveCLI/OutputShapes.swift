import ArchiveFront

/// The `--json` shapes that are the CLI's own (see docs/FORMATS.md); domain types that a
/// command prints (`StorageChange`, `IntegrityReport`, `MigrationStatus`, a
/// favorite record) encode themselves. Keys are sorted on output.
enum OutputShapes {
    /// `archive search --json`. `source` is `catalog`, or `favorites` when the
    /// catalog could not answer and the rows are the matching stored favorites;
    /// then `reason` says why (and is absent otherwise).
    struct Search: Encodable {
        let keyword: String
        let category: String
        let count: Int
        let results: [Row]
        let source: String
        let reason: String?
    }

    /// `archive reindex --json`: the database and how many favorites the rebuilt index holds.
    struct Reindex: Encodable {
        let database: String
        let favorites: Int
    }

    /// One search result: the dish's fields (those of `ArchiveSceneEntity`) and `isStored`.
    struct Row: Encodable {
        let cell: ArchiveCellViewObject

        private enum CodingKeys: String, CodingKey {
            case isStored
        }

        func encode(to encoder: any Encoder) throws {
            try cell.entity.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(cell.isStored, forKey: .isStored)
        }
    }
}
