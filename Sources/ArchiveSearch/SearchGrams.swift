/// The grams of the favorites search index: the definition its keys stand for.
///
/// A text is folded (``SearchFolding``) and cut into one gram per scalar: the
/// scalar and the two after it, as UTF-8, the missing ones at the end written
/// as the byte `0xFF` (which never occurs in UTF-8). So every folded scalar
/// starts a gram, and:
/// - a 1- or 2-scalar keyword is found exactly by the grams that start with it;
/// - a longer keyword is looked up as its 3-scalar windows; the index then gives
///   a superset (the windows may sit in different places or fields), and the
///   caller keeps only the rows that ``SearchKeyword`` matches.
///
/// Fields are cut separately, so no gram spans two. The index stores each gram
/// as a ``SearchGramKey`` (migration 0004); migration 0003's FTS5 table, which
/// it replaced, stored the grams themselves, cut by this type's tokenizer.
public enum SearchGrams {
    /// The byte that stands for "no scalar" after the end of a text.
    static let padding: UInt8 = 0xFF

    /// The longest gram: three scalars of four bytes.
    static let maximumGramLength = 12
    /// The most 3-scalar windows of a keyword the index is asked for.
    public static let maximumWindows = 16

    /// Calls `body` with every gram of the text whose UTF-8 bytes are `utf8`,
    /// in order (a gram may repeat). `body` returns `false` to stop.
    ///
    /// Written without closures that capture state (the tokenizer's hot path: a
    /// captured, mutated variable costs a runtime exclusivity check per access).
    public static func forEachGram(inUTF8 utf8: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Bool) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumGramLength) { buffer in
            guard let base = buffer.baseAddress else { return }
            var writer = GramWriter(base: base)
            var iterator = utf8.makeIterator()
            var decoder = UTF8()
            while true {
                let scalar: Unicode.Scalar
                switch decoder.decode(&iterator) {
                case .scalarValue(let decoded): scalar = decoded
                case .error: scalar = .replacement
                case .emptyInput:
                    _ = writer.finish(body)
                    return
                }
                switch SearchFolding.folded(scalar) {
                case .one(let folded):
                    guard writer.push(folded, body) else { return }
                case .several(let scalars):
                    for folded in scalars {
                        guard writer.push(folded, body) else { return }
                    }
                }
            }
        }
    }

    /// Keeps the two scalars before the current one, and writes each gram into `base`.
    private struct GramWriter {
        let base: UnsafeMutablePointer<UInt8>
        var first = Unicode.Scalar(UInt8(0))
        var second = Unicode.Scalar(UInt8(0))
        var count = 0

        /// The next folded scalar: emits the gram that starts two scalars back.
        mutating func push(_ scalar: Unicode.Scalar, _ body: (UnsafeRawBufferPointer) -> Bool) -> Bool {
            defer {
                first = second
                second = scalar
                count += 1
            }
            guard count >= 2 else { return true }
            var length = Self.write(first, to: base, at: 0)
            length = Self.write(second, to: base, at: length)
            length = Self.write(scalar, to: base, at: length)
            return body(UnsafeRawBufferPointer(start: base, count: length))
        }

        /// The text ended: the grams of its last two scalars, padded.
        func finish(_ body: (UnsafeRawBufferPointer) -> Bool) -> Bool {
            if count >= 2 {
                var length = Self.write(first, to: base, at: 0)
                length = Self.write(second, to: base, at: length)
                base[length] = padding
                guard body(UnsafeRawBufferPointer(start: base, count: length + 1)) else { return false }
            }
            if count >= 1 {
                let length = Self.write(second, to: base, at: 0)
                base[length] = padding
                base[length + 1] = padding
                return body(UnsafeRawBufferPointer(start: base, count: length + 2))
            }
            return true
        }

        /// Writes `scalar` as UTF-8 at `offset`; returns the offset after it.
        @inline(__always)
        static func write(_ scalar: Unicode.Scalar, to base: UnsafeMutablePointer<UInt8>, at offset: Int) -> Int {
            let value = scalar.value
            switch value {
            case ..<0x80:
                base[offset] = UInt8(value)
                return offset + 1
            case ..<0x800:
                base[offset] = UInt8(0xC0 | (value >> 6))
                base[offset + 1] = UInt8(0x80 | (value & 0x3F))
                return offset + 2
            case ..<0x10000:
                base[offset] = UInt8(0xE0 | (value >> 12))
                base[offset + 1] = UInt8(0x80 | ((value >> 6) & 0x3F))
                base[offset + 2] = UInt8(0x80 | (value & 0x3F))
                return offset + 3
            default:
                base[offset] = UInt8(0xF0 | (value >> 18))
                base[offset + 1] = UInt8(0x80 | ((value >> 12) & 0x3F))
                base[offset + 2] = UInt8(0x80 | ((value >> 6) & 0x3F))
                base[offset + 3] = UInt8(0x80 | (value & 0x3F))
                return offset + 4
            }
        }
    }
}
