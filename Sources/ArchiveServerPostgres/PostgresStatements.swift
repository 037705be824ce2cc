/// A migration file's statements, one a query: PostgreSQL's extended protocol (the only one
/// PostgresNIO speaks) takes one statement at a time, so the file is split at each `;` that
/// ends a statement, as PostgreSQL's own lexer would see it. A `;` or `--` inside a string
/// (`'…'` with `''`, `E'…'` with backslash escapes), a quoted name (`"…"`), a dollar-quoted
/// body (`$$…$$`, `$tag$…$tag$`: a function's) or a comment (`--` to the line's end,
/// `/* … */` nested) is text, not a boundary. Comments are kept (PostgreSQL skips them);
/// statements that hold nothing but comments and spaces are dropped.
enum PostgresStatements {
    /// The statements of `sql`, without their closing `;`.
    static func split(_ sql: String) -> [String] {
        let bytes = Array(sql.utf8)
        var statements: [String] = []
        var start = 0, index = 0
        var onlyTrivia = true  // whether the current statement holds only spaces and comments
        func finish(at end: Int) {
            if !onlyTrivia { statements.append(String(decoding: bytes[start..<end], as: UTF8.self)) }
            start = end + 1
            onlyTrivia = true
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: ";"):
                finish(at: index)
                index += 1
            case UInt8(ascii: "-") where next(bytes, index) == UInt8(ascii: "-"):
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            case UInt8(ascii: "/") where next(bytes, index) == UInt8(ascii: "*"):
                index = endOfBlockComment(bytes, from: index)
            case UInt8(ascii: "'"):
                onlyTrivia = false
                let escapes = index > 0 && (bytes[index - 1] | 0x20) == UInt8(ascii: "e") && !isIdentifierByte(bytes, index - 2)
                index = endOfQuoted(bytes, from: index, quote: UInt8(ascii: "'"), backslashEscapes: escapes)
            case UInt8(ascii: "\""):
                onlyTrivia = false
                index = endOfQuoted(bytes, from: index, quote: UInt8(ascii: "\""), backslashEscapes: false)
            case UInt8(ascii: "$") where !isIdentifierByte(bytes, index - 1):
                onlyTrivia = false
                index = endOfDollarQuoted(bytes, from: index) ?? index + 1
            default:
                if !(byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D) { onlyTrivia = false }
                index += 1
            }
        }
        finish(at: bytes.count)
        return statements
    }

    private static func next(_ bytes: [UInt8], _ index: Int) -> UInt8? {
        index + 1 < bytes.count ? bytes[index + 1] : nil
    }

    /// Whether the byte at `index` can be part of a name (a `$` after one is a positional
    /// parameter's or part of the name, never a dollar quote's start; `e'` after one is not
    /// an escape string).
    private static func isIdentifierByte(_ bytes: [UInt8], _ index: Int) -> Bool {
        guard index >= 0, index < bytes.count else { return false }
        let byte = bytes[index]
        return byte >= 0x80 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z"))
    }

    /// The index past the `/* … */` comment at `index` (nested ones included), or the end.
    private static func endOfBlockComment(_ bytes: [UInt8], from index: Int) -> Int {
        var depth = 0, index = index
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "/"), next(bytes, index) == UInt8(ascii: "*") {
                depth += 1
                index += 2
            } else if bytes[index] == UInt8(ascii: "*"), next(bytes, index) == UInt8(ascii: "/") {
                depth -= 1
                index += 2
                if depth == 0 { return index }
            } else {
                index += 1
            }
        }
        return index
    }

    /// The index past the quoted text at `index` (a doubled quote is one inside it).
    private static func endOfQuoted(_ bytes: [UInt8], from index: Int, quote: UInt8, backslashEscapes: Bool) -> Int {
        var index = index + 1
        while index < bytes.count {
            if backslashEscapes, bytes[index] == UInt8(ascii: "\\") {
                index += 2
            } else if bytes[index] == quote {
                if next(bytes, index) == quote { index += 2 } else { return index + 1 }
            } else {
                index += 1
            }
        }
        return index
    }

    /// The index past the dollar-quoted text at `index` (`$tag$ … $tag$`), or `nil` when
    /// the `$` starts no tag (a parameter such as `$1`).
    private static func endOfDollarQuoted(_ bytes: [UInt8], from index: Int) -> Int? {
        var tagEnd = index + 1
        while tagEnd < bytes.count, bytes[tagEnd] != UInt8(ascii: "$") {
            let byte = bytes[tagEnd]
            let letter = byte >= 0x80 || byte == UInt8(ascii: "_") || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z"))
            let digit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            guard letter || (digit && tagEnd > index + 1) else { return nil }
            tagEnd += 1
        }
        guard tagEnd < bytes.count else { return nil }
        let tag = bytes[index...tagEnd]
        var search = tagEnd + 1
        while search + tag.count <= bytes.count {
            if bytes[search] == UInt8(ascii: "$"), bytes[search..<(search + tag.count)].elementsEqual(tag) { return search + tag.count }
            search += 1
        }
        return bytes.count
    }
}
