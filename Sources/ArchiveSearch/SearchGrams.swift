/// The grams of the favorites search index, and the index query of a keyword.
///
/// A text is folded (``SearchFolding``) and cut into one gram per scalar: the
/// scalar and the two after it, as UTF-8, the missing ones at the end written
/// as the byte `0xFF` (which never occurs in UTF-8). So every folded scalar
/// starts a gram, and:
/// - a 1- or 2-scalar keyword is found exactly by a *prefix* query on its
///   bytes (`"寿司" *` finds every gram starting with 寿司);
/// - a longer keyword is looked up as all of its 3-scalar windows (`AND`); the
///   index then gives a superset (the windows may sit in different places or
///   fields), and the caller keeps only the rows that ``SearchKeyword`` matches.
///
/// The index is SQLite FTS5 with `detail=none` (which rows hold a gram, not
/// where), one column per field, so no gram spans two fields.
public enum SearchGrams {
    /// The byte that stands for "no scalar" after the end of a text.
    static let padding: UInt8 = 0xFF

    /// The longest gram: three scalars of four bytes.
    static let maximumGramLength = 12

    /// Calls `body` with every gram of the text whose UTF-8 bytes are `utf8`,
    /// in order (a gram may repeat). `body` returns `false` to stop.
    public static func forEachGram(inUTF8 utf8: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Bool) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumGramLength) { buffer in
            var first = Unicode.Scalar(UInt8(0))
            var second = Unicode.Scalar(UInt8(0))
            var count = 0
            var stopped = false
            func emit(_ a: Unicode.Scalar, _ b: Unicode.Scalar?, _ c: Unicode.Scalar?) {
                guard !stopped else { return }
                var length = 0
                func append(_ scalar: Unicode.Scalar?) {
                    if let scalar {
                        UTF8.encode(scalar) { buffer[length] = $0; length += 1 }
                    } else {
                        buffer[length] = padding
                        length += 1
                    }
                }
                append(a)
                append(b)
                append(c)
                stopped = !body(UnsafeRawBufferPointer(start: buffer.baseAddress, count: length))
            }
            SearchFolding.forEachScalar(inUTF8: utf8) { scalar in
                SearchFolding.fold(scalar) { folded in
                    if count >= 2 { emit(first, second, folded) }
                    first = second
                    second = folded
                    count += 1
                }
            }
            if count >= 2 { emit(first, second, nil) }
            if count >= 1 { emit(second, nil, nil) }
        }
    }

    /// The FTS5 query that finds (a superset of) the texts containing `keyword`,
    /// or `nil` when the index cannot answer it: an empty keyword (everything
    /// matches) or one holding U+0000 (FTS5 reads its query as a C string).
    ///
    /// The quoted strings are handed to the tokenizer in query mode, which takes
    /// each one whole as one gram (see ``SearchGrams``).
    public static func matchExpression(for keyword: SearchKeyword) -> String? {
        let needle = keyword.needle
        guard !needle.isEmpty, !needle.contains(0) else { return nil }
        let scalars = Array(String(decoding: needle, as: UTF8.self).unicodeScalars)
        if scalars.count <= 2 {
            return quoted(scalars[...]) + " *"
        }
        var windows: [String] = []
        var seen = Set<String>()
        for start in 0...(scalars.count - 3) {
            let window = quoted(scalars[start..<(start + 3)])
            if seen.insert(window).inserted { windows.append(window) }
        }
        return windows.joined(separator: " AND ")
    }

    /// An FTS5 string literal: in double quotes, a double quote doubled.
    private static func quoted(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        var text = "\""
        for scalar in scalars {
            if scalar == "\"" { text += "\"\"" } else { text.unicodeScalars.append(scalar) }
        }
        return text + "\""
    }
}
