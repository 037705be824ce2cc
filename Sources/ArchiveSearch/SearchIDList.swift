/// A sorted list of favorite IDs as the search runs store it: each ID as its
/// difference from the one before (the first from 0), a variable-length
/// integer of 7 bits a byte, low bits first.
///
/// Differences are taken with wrapping arithmetic, so any `Int` ID works,
/// negative ones and both limits included (a negative first ID takes ten bytes).
public enum SearchIDList {
    /// The most bytes one integer takes.
    static let maximumIntegerLength = 10

    /// Appends `value` to `bytes` as a variable-length integer.
    @inline(__always)
    static func appendInteger(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// How many bytes `value` takes as a variable-length integer.
    @inline(__always)
    static func integerLength(_ value: UInt64) -> Int {
        (64 - value.leadingZeroBitCount + 6) / 7 + (value == 0 ? 1 : 0)
    }

    /// Reads the variable-length integer at `offset` of `bytes` and moves past it.
    @inline(__always)
    static func readInteger(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) throws(SearchRunError) -> UInt64 {
        let start = offset
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < bytes.count else { throw SearchRunError(.truncated, at: start) }
            let byte = bytes[offset]
            offset += 1
            // The tenth byte holds bit 63 alone.
            guard shift < 63 || byte <= 1 else { throw SearchRunError(.overlongInteger, at: start) }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    /// Appends the IDs `ids` (strictly ascending) to `bytes`.
    public static func append(_ ids: some Sequence<Int>, to bytes: inout [UInt8]) {
        var previous = 0
        for id in ids {
            appendInteger(UInt64(UInt(bitPattern: id &- previous)), to: &bytes)
            previous = id
        }
    }

    /// Calls `body` with each ID of the list `bytes`, ascending; throws when the
    /// bytes are not such a list.
    @inline(__always)
    public static func forEach(in bytes: UnsafeRawBufferPointer, _ body: (Int) -> Void) throws(SearchRunError) {
        var offset = 0
        var previous = 0
        var first = true
        while offset < bytes.count {
            let start = offset
            let delta = try readInteger(bytes, at: &offset)
            if first {
                previous = Int(bitPattern: UInt(delta))
                first = false
            } else {
                // Ascending: a step of at least 1 that does not pass Int.max.
                guard delta >= 1, delta <= UInt64(UInt(bitPattern: Int.max &- previous)) else {
                    throw SearchRunError(.idsOutOfOrder, at: start)
                }
                previous &+= Int(bitPattern: UInt(delta))
            }
            body(previous)
        }
    }

    /// The IDs of the list `bytes`, ascending.
    public static func ids(in bytes: UnsafeRawBufferPointer) throws(SearchRunError) -> [Int] {
        var ids: [Int] = []
        try forEach(in: bytes) { ids.append($0) }
        return ids
    }

    /// The IDs of the list held in `bytes`, ascending.
    public static func ids(in bytes: [UInt8]) throws(SearchRunError) -> [Int] {
        let result: Result<[Int], SearchRunError> = bytes.withUnsafeBytes { buffer in
            do throws(SearchRunError) { return .success(try ids(in: buffer)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
