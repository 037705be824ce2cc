import ArchiveStorage
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import ArchiveSyncModel

/// Reads the import format one record at a time: a JSON array of objects with
/// `id` (integer), `photoUrl`, `category`, `dishName`, `shopName`,
/// `introduction` (strings) and optionally `storedAt` (ISO 8601 text or Unix
/// milliseconds; the import time when missing or null). Unknown fields are ignored.
///
/// Every record is validated as it is read (``StoredArchiveObject/validate(index:)``);
/// errors are ``FavoritesImportError`` naming the line or the record's index and field.
public struct FavoritesJSONReader {
    /// The longest string the reader accepts, in bytes, before refusing the record
    /// (longer than any field may be: it bounds memory on hostile files).
    public static let maximumStringBytes = 64 * 1024
    private static let maximumDepth = 64

    private var reader: JSONByteReader
    private var phase = Phase.start
    private let defaultStoredAt: Date
    private var scratch: [UInt8] = []
    /// The number of records read so far.
    public private(set) var count = 0

    private enum Phase { case start, records, done }

    /// A reader of `handle`; records without `storedAt` get `defaultStoredAt`.
    public init(handle: FileDescriptorHandle, defaultStoredAt: Date) {
        self.init(handle: handle, defaultStoredAt: defaultStoredAt, copyingTo: nil)
    }

    /// A reader of `handle` that also writes every byte it reads to `copy`
    /// (throwing ``JSONByteReader/CopyFailed`` when that write fails).
    init(handle: FileDescriptorHandle, defaultStoredAt: Date, copyingTo copy: FileDescriptorHandle?) {
        self.reader = JSONByteReader(handle: handle, copyingTo: copy)
        self.defaultStoredAt = defaultStoredAt
        scratch.reserveCapacity(1024)
    }

    /// How many bytes of the file have been read.
    public var bytesRead: Int { reader.offset }

    /// The next record, or `nil` after the last one.
    public mutating func next() throws -> StoredArchiveObject? {
        switch phase {
        case .done:
            return nil
        case .start:
            try skipByteOrderMark()
            try reader.skipWhitespace()
            guard try reader.next() == UInt8(ascii: "[") else {
                throw syntax("expected '[' at the start of the file")
            }
            try reader.skipWhitespace()
            if try reader.peek() == UInt8(ascii: "]") {
                reader.advance()
                try finish()
                return nil
            }
            phase = .records
        case .records:
            try reader.skipWhitespace()
            switch try reader.next() {
            case UInt8(ascii: ","):
                try reader.skipWhitespace()
            case UInt8(ascii: "]"):
                try finish()
                return nil
            case nil:
                throw syntax("the file ends after record \(count - 1) without a closing ']'")
            default:
                throw syntax("expected ',' or ']' after record \(count - 1)")
            }
        }
        let object = try readRecord(index: count)
        count += 1
        return object
    }

    // MARK: - Records

    private mutating func readRecord(index: Int) throws -> StoredArchiveObject {
        guard try reader.peek() == UInt8(ascii: "{") else {
            throw syntax("expected a record ({...}) at index \(index), found \(try describeNext())")
        }
        reader.advance()
        var id: Int?
        var photoUrl: String?
        var category: String?
        var dishName: String?
        var shopName: String?
        var introduction: String?
        var storedAt: Date?
        try reader.skipWhitespace()
        if try reader.peek() == UInt8(ascii: "}") {
            reader.advance()
        } else {
            while true {
                try reader.skipWhitespace()
                guard try reader.peek() == UInt8(ascii: "\"") else {
                    throw syntax("expected a field name in record \(index), found \(try describeNext())")
                }
                // The name is matched on its bytes: no String is made for the known ones.
                try readRawString(index: index, field: "field name")
                let known = Self.fieldNames.firstIndex { $0 == scratch }
                let key: String
                if let known { key = Self.fieldNameStrings[known] } else { key = try validatedScratch(index: index, field: "field name") }
                try reader.skipWhitespace()
                guard try reader.next() == UInt8(ascii: ":") else {
                    throw syntax("expected ':' after \"\(key)\" in record \(index)")
                }
                try reader.skipWhitespace()
                switch known {
                case 0:
                    id = try readInteger(index: index, field: key)
                case 1:
                    storedAt = try readDate(index: index)
                case let .some(field):
                    guard try reader.peek() == UInt8(ascii: "\"") else {
                        throw FavoritesImportError.invalidRecord(
                            index: index, field: key, reason: "must be a string, found \(try describeNext())")
                    }
                    let text = try readString(index: index, field: key)
                    switch field {
                    case 2: photoUrl = text
                    case 3: category = text
                    case 4: dishName = text
                    case 5: shopName = text
                    default: introduction = text
                    }
                case nil:
                    try skipValue(index: index, depth: 0)
                }
                try reader.skipWhitespace()
                switch try reader.next() {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "}"): break
                case nil: throw syntax("the file ends inside record \(index)")
                default: throw syntax("expected ',' or '}' in record \(index)")
                }
                break
            }
        }
        guard let id else { throw FavoritesImportError.invalidRecord(index: index, field: "id", reason: "is missing") }
        guard let photoUrl else { throw FavoritesImportError.invalidRecord(index: index, field: "photoUrl", reason: "is missing") }
        guard let category else { throw FavoritesImportError.invalidRecord(index: index, field: "category", reason: "is missing") }
        guard let dishName else { throw FavoritesImportError.invalidRecord(index: index, field: "dishName", reason: "is missing") }
        guard let shopName else { throw FavoritesImportError.invalidRecord(index: index, field: "shopName", reason: "is missing") }
        guard let introduction else {
            throw FavoritesImportError.invalidRecord(index: index, field: "introduction", reason: "is missing")
        }
        let object = StoredArchiveObject(
            id: id, photoUrl: photoUrl, category: category, dishName: dishName,
            shopName: shopName, introduction: introduction, storedAt: storedAt ?? defaultStoredAt)
        do {
            try object.validate(index: index)
        } catch {
            guard case .invalidObject(_, _, let field, let reason) = error else { throw error }
            throw FavoritesImportError.invalidRecord(index: index, field: field, reason: reason)
        }
        return object
    }

    /// The record's field names, in the order `readRecord` switches on: `id`, `storedAt`, then the five texts.
    private static let fieldNameStrings = ["id", "storedAt", "photoUrl", "category", "dishName", "shopName", "introduction"]
    private static let fieldNames = fieldNameStrings.map { Array($0.utf8) }

    // MARK: - Values

    private mutating func readInteger(index: Int, field: String) throws -> Int {
        guard let first = try reader.peek(), first == UInt8(ascii: "-") || (48...57).contains(first) else {
            throw FavoritesImportError.invalidRecord(
                index: index, field: field, reason: "must be an integer, found \(try describeNext())")
        }
        var negative = false
        if first == UInt8(ascii: "-") {
            negative = true
            reader.advance()
        }
        if try reader.peek() == UInt8(ascii: "0") {
            reader.advance()
            if let byte = try reader.peek(), (48...57).contains(byte) {
                throw syntax("a number with a leading zero in record \(index) (field '\(field)'): JSON does not allow it")
            }
            if let byte = try reader.peek(), byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                throw FavoritesImportError.invalidRecord(index: index, field: field, reason: "must be an integer, found a fraction or exponent")
            }
            return 0
        }
        var value = 0
        var digits = 0
        var overflow = false
        while let byte = try reader.peek(), (48...57).contains(byte) {
            reader.advance()
            digits += 1
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = negative ? times.subtractingReportingOverflow(Int(byte - 48)) : times.addingReportingOverflow(Int(byte - 48))
            overflow = overflow || o1 || o2
            value = sum
        }
        if let byte = try reader.peek(), byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            throw FavoritesImportError.invalidRecord(index: index, field: field, reason: "must be an integer, found a fraction or exponent")
        }
        guard digits > 0 else { throw syntax("expected digits after '-' in record \(index)") }
        guard !overflow else {
            throw FavoritesImportError.invalidRecord(index: index, field: field, reason: "is out of the 64-bit integer range")
        }
        return value
    }

    private mutating func readDate(index: Int) throws -> Date? {
        switch try reader.peek() {
        case UInt8(ascii: "n"):
            try expectLiteral("null", index: index)
            return nil
        case UInt8(ascii: "\""):
            try readRawString(index: index, field: "storedAt")
            guard let milliseconds = ISO8601Milliseconds.parse(scratch[...]) else {
                throw FavoritesImportError.invalidRecord(
                    index: index, field: "storedAt",
                    reason: "must be an ISO 8601 date such as 2026-11-22T04:19:57.123Z, found \"\(String(decoding: scratch.prefix(40), as: UTF8.self))\"")
            }
            return Date(millisecondsSince1970: milliseconds)
        default:
            let milliseconds = try readInteger(index: index, field: "storedAt")
            return Date(millisecondsSince1970: Int64(milliseconds))
        }
    }

    /// Reads a string value into a Swift string, refusing invalid UTF-8.
    private mutating func readString(index: Int, field: String) throws -> String {
        try readRawString(index: index, field: field)
        return try validatedScratch(index: index, field: field)
    }

    /// `scratch` as a Swift string, refusing invalid UTF-8.
    private func validatedScratch(index: Int, field: String) throws -> String {
        // Checked here, then decoded on the standard library's fast path (`String(validating:)`
        // goes through unspecialized generic code: a metadata lookup per string).
        guard UTF8Validation.isValid(scratch) else {
            throw FavoritesImportError.invalidRecord(index: index, field: field, reason: "is not valid UTF-8")
        }
        return String(decoding: scratch, as: UTF8.self)
    }

    /// Reads a string value's unescaped bytes into `scratch`.
    private mutating func readRawString(index: Int, field: String) throws {
        guard try reader.next() == UInt8(ascii: "\"") else { throw syntax("expected '\"' in record \(index)") }
        scratch.removeAll(keepingCapacity: true)
        while true {
            // Runs of plain bytes are copied at once; only quotes, escapes and control bytes go one by one.
            try reader.appendPlainStringBytes(to: &scratch)
            guard let byte = try reader.next() else { throw syntax("the file ends inside a string in record \(index)") }
            switch byte {
            case UInt8(ascii: "\""):
                return
            case UInt8(ascii: "\\"):
                try readEscape(index: index, field: field)
            case 0..<0x20:
                throw syntax("a raw control character (byte \(byte)) inside a string in record \(index); escape it")
            default:
                scratch.append(byte)
            }
            if scratch.count > Self.maximumStringBytes {
                throw FavoritesImportError.invalidRecord(
                    index: index, field: field, reason: "is longer than \(Self.maximumStringBytes) bytes")
            }
        }
    }

    private mutating func readEscape(index: Int, field: String) throws {
        guard let escaped = try reader.next() else { throw syntax("the file ends inside a string in record \(index)") }
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(escaped)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try readHex4(index: index)
            if (0xD800...0xDBFF).contains(scalar) {
                guard try reader.next() == UInt8(ascii: "\\"), try reader.next() == UInt8(ascii: "u") else {
                    throw FavoritesImportError.invalidRecord(index: index, field: field, reason: "has an unpaired surrogate escape")
                }
                let low = try readHex4(index: index)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw FavoritesImportError.invalidRecord(index: index, field: field, reason: "has an unpaired surrogate escape")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw FavoritesImportError.invalidRecord(index: index, field: field, reason: "has an unpaired surrogate escape")
            }
            guard let unicode = Unicode.Scalar(scalar) else {
                throw FavoritesImportError.invalidRecord(index: index, field: field, reason: "has an invalid \\u escape")
            }
            scratch.append(contentsOf: String(unicode).utf8)
        default:
            throw syntax("invalid escape '\\\(Character(Unicode.Scalar(escaped)))' in record \(index)")
        }
    }

    private mutating func readHex4(index: Int) throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = try reader.next() else { throw syntax("the file ends inside a \\u escape in record \(index)") }
            guard let digit = Hex.nibble(byte) else { throw syntax("invalid \\u escape in record \(index)") }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// Skips a string of a field the format does not use: it is not kept, but a file whose
    /// bytes are not UTF-8 anywhere is not JSON (RFC 8259, section 8.1) and is refused whole.
    private mutating func skipString(index: Int) throws {
        try readRawString(index: index, field: "(unknown field)")
        guard UTF8Validation.isValid(scratch) else {
            throw FavoritesImportError.invalidRecord(index: index, field: "(unknown field)", reason: "is not valid UTF-8")
        }
    }

    /// Skips a value of a field the format does not use.
    private mutating func skipValue(index: Int, depth: Int) throws {
        guard depth < Self.maximumDepth else { throw syntax("values nested deeper than \(Self.maximumDepth) levels in record \(index)") }
        switch try reader.peek() {
        case UInt8(ascii: "\""):
            try skipString(index: index)
        case UInt8(ascii: "t"):
            try expectLiteral("true", index: index)
        case UInt8(ascii: "f"):
            try expectLiteral("false", index: index)
        case UInt8(ascii: "n"):
            try expectLiteral("null", index: index)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let close = try reader.next() == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
            try reader.skipWhitespace()
            if try reader.peek() == close {
                reader.advance()
                return
            }
            while true {
                try reader.skipWhitespace()
                if close == UInt8(ascii: "}") {
                    try skipString(index: index)
                    try reader.skipWhitespace()
                    guard try reader.next() == UInt8(ascii: ":") else { throw syntax("expected ':' in record \(index)") }
                    try reader.skipWhitespace()
                }
                try skipValue(index: index, depth: depth + 1)
                try reader.skipWhitespace()
                let separator = try reader.next()
                if separator == close { return }
                guard separator == UInt8(ascii: ",") else { throw syntax("expected ',' in a nested value of record \(index)") }
            }
        case let byte? where byte == UInt8(ascii: "-") || (48...57).contains(byte):
            try skipNumber(index: index)
        default:
            throw syntax("expected a value in record \(index), found \(try describeNext())")
        }
    }

    /// Skips a number, following JSON's grammar exactly:
    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func skipNumber(index: Int) throws {
        func digits() throws -> Int {
            var count = 0
            while let byte = try reader.peek(), (48...57).contains(byte) {
                reader.advance()
                count += 1
            }
            return count
        }
        let invalid = syntax("an invalid number in record \(index): JSON numbers look like 12, -3, 0.5 or 1e3")
        if try reader.peek() == UInt8(ascii: "-") { reader.advance() }
        if try reader.peek() == UInt8(ascii: "0") {
            reader.advance()
            if let byte = try reader.peek(), (48...57).contains(byte) { throw invalid }
        } else if try digits() == 0 {
            throw invalid
        }
        if try reader.peek() == UInt8(ascii: ".") {
            reader.advance()
            if try digits() == 0 { throw invalid }
        }
        if let byte = try reader.peek(), byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            reader.advance()
            if let sign = try reader.peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { reader.advance() }
            if try digits() == 0 { throw invalid }
        }
    }

    private mutating func expectLiteral(_ literal: String, index: Int) throws {
        for byte in literal.utf8 {
            guard try reader.next() == byte else { throw syntax("expected '\(literal)' in record \(index)") }
        }
    }

    // MARK: - Helpers

    private mutating func finish() throws {
        try reader.skipWhitespace()
        if try reader.peek() != nil {
            throw syntax("unexpected data after the closing ']'")
        }
        phase = .done
    }

    private mutating func skipByteOrderMark() throws {
        guard try reader.peek() == 0xEF else { return }
        for byte in [0xEF, 0xBB, 0xBF] as [UInt8] {
            guard try reader.next() == byte else { throw syntax("the file is not UTF-8 JSON") }
        }
    }

    private mutating func describeNext() throws -> String {
        switch try reader.peek() {
        case nil: return "the end of the file"
        case UInt8(ascii: "\"")?: return "a string"
        case UInt8(ascii: "{")?: return "an object"
        case UInt8(ascii: "[")?: return "an array"
        case UInt8(ascii: "t")?, UInt8(ascii: "f")?: return "a boolean"
        case UInt8(ascii: "n")?: return "null"
        case let byte? where byte == UInt8(ascii: "-") || (48...57).contains(byte): return "a number"
        case let byte?: return "'\(Character(Unicode.Scalar(byte)))'"
        }
    }

    private func syntax(_ message: String) -> FavoritesImportError {
        .syntax(line: reader.line, message: message)
    }
}
