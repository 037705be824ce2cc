import SQLite

/// Which of a keyword's index terms a favorites search intersects: the rare ones.
///
/// FTS5 intersects terms by stepping through each term's list of rows. A term
/// that most favorites contain (the window `番号 ` of `番号 12346`) is a list of
/// nearly every row: stepping through it costs milliseconds at a million
/// favorites while it narrows the candidates hardly at all. Every candidate is
/// checked against the keyword anyway, so any non-empty subset of the terms is
/// correct; the plan keeps the rarest few.
///
/// How rare a term is comes from a cheap probe: its first ``probeRows`` rows
/// (FTS5 lists rows in ID order). Fewer rows than that is an exact, tiny count;
/// otherwise the IDs they span give the term's density (rows per ID). The probe
/// reads one leaf page of the index per term; it estimates, it never decides
/// what matches.
struct SearchTermPlan {
    /// How many rows of each term the probe reads.
    static let probeRows = 8
    /// The most terms intersected.
    static let maximumTerms = 3
    /// A term denser than this (one row in 50 IDs) is left out, unless it is the rarest.
    static let densityLimit = 0.02

    static let probeSQL = """
        SELECT rowid FROM archive_objects_search WHERE archive_objects_search MATCH ? LIMIT \(probeRows)
        """
    static let smallestIDSQL = "SELECT min(id) FROM archive_objects"

    /// How rare one term is: a known small count, or an estimated density.
    struct Rarity: Comparable {
        /// The term's rows, when the probe read all of them (fewer than ``probeRows``).
        var count: Int?
        /// Rows per ID over the probed span, when the probe did not read all of them.
        var density: Double

        static func < (left: Rarity, right: Rarity) -> Bool {
            switch (left.count, right.count) {
            case let (left?, right?): left < right
            case (.some, nil): true
            case (nil, .some): false
            case (nil, nil): left.density < right.density
            }
        }
    }

    /// The terms to intersect, rarest first; empty when a term has no rows at
    /// all (then nothing can match).
    let terms: [String]

    /// Probes each of `terms` in `db` (inside the search's read transaction).
    init(terms: [String], in db: Database) throws {
        guard terms.count > 1 else {
            self.terms = terms
            return
        }
        let smallest = try db.cachedStatement(Self.smallestIDSQL)
        defer { smallest.reset() }
        guard try smallest.step(), !smallest.isNull(at: 0) else {
            self.terms = []
            return
        }
        let smallestID = try smallest.int(at: 0)
        let probe = try db.cachedStatement(Self.probeSQL)
        var rarities: [(term: String, rarity: Rarity)] = []
        for term in terms {
            try probe.bind(term, at: 1)
            defer { probe.reset() }
            var rows = 0
            var lastID = smallestID
            while try probe.step() {
                rows += 1
                lastID = try probe.int(at: 0)
            }
            if rows == 0 {
                self.terms = []
                return
            }
            let span = Double(lastID) - Double(smallestID) + 1
            let rarity = rows < Self.probeRows
                ? Rarity(count: rows, density: 0)
                : Rarity(count: nil, density: Double(rows) / max(span, 1))
            rarities.append((term, rarity))
        }
        rarities.sort { $0.rarity < $1.rarity }
        var chosen: [String] = []
        for (index, entry) in rarities.enumerated() where chosen.count < Self.maximumTerms {
            if index == 0 || entry.rarity.count != nil || entry.rarity.density <= Self.densityLimit {
                chosen.append(entry.term)
            }
        }
        self.terms = chosen
    }
}
