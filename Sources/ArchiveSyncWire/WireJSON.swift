#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// The sync wire's JSON, read and written without `Codable`'s generic machinery: a push's and
/// a pull's changes are most of what a first sync costs, and `JSONDecoder` spent more on them
/// than the whole `archive import` of the same favorites (docs/PERFORMANCE.md, "The wire's
/// JSON by hand").
///
/// One meaning, two ways: ``decode(_:from:)`` reads the bytes with ``WireJSONReader``'s
/// subset, and hands anything outside it to `JSONDecoder`, whose answer (or error) then
/// stands; the types' `Codable` conformances stay the definition. `WireJSONTests` proves the
/// fast path and `JSONDecoder` give equal values on generated and damaged bodies, and that
/// the writers' output decodes to the values written.
package enum WireJSON {
    // MARK: - Reading

    /// `type` from the JSON `bytes`: by the fast reader when the bytes are in its subset,
    /// by `JSONDecoder` otherwise (its errors are the errors).
    package static func decode<Value: WireJSONDecodable>(_ type: Value.Type, from bytes: UnsafeRawBufferPointer) throws -> Value {
        var reader = WireJSONReader(bytes)
        if let value = Value.read(&reader), reader.atEnd() { return value }
        return try JSONDecoder().decode(Value.self, from: Data(bytes))
    }

    /// ``decode(_:from:)`` of bytes in an array or `Data`.
    package static func decode<Value: WireJSONDecodable>(_ type: Value.Type, from bytes: some ContiguousBytes) throws -> Value {
        try bytes.withUnsafeBytes { try decode(type, from: $0) }
    }

    /// Reads the members of an object whose keys are `keys` (any order, each at most once;
    /// others skipped) into `take`, which returns whether the value was in the subset.
    static func members(_ reader: inout WireJSONReader, _ keys: [String], _ take: (inout WireJSONReader, Int) -> Bool) -> Bool {
        var seen = 0 as UInt16
        return reader.object { reader, key in
            guard let index = keys.firstIndex(of: key) else { return reader.skipValue() }
            // A key given twice: JSONDecoder's rule for it stands, not a guess.
            guard seen & (1 << index) == 0 else { return false }
            seen |= 1 << index
            return take(&reader, index)
        }
    }

    // MARK: - Writing

    /// `request` as the JSON `JSONEncoder` writes for it (keys in its order).
    package static func encode(_ request: SyncPushRequest) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + request.changes.count * 320)
        out.append(contentsOf: #"{"device":"#.utf8)
        WireJSONWriter.string(request.device, to: &out)
        out.append(contentsOf: #","through":"#.utf8)
        WireJSONWriter.integer(request.through, to: &out)
        out.append(contentsOf: #","seen":"#.utf8)
        WireJSONWriter.integer(request.seen, to: &out)
        out.append(contentsOf: #","changes":"#.utf8)
        WireJSONWriter.changes(request.changes, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `page` as JSON, keys sorted (as the service writes every answer).
    package static func encode(_ page: SyncPullResponse) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(160 + page.changes.count * 320)
        out.append(contentsOf: #"{"changes":"#.utf8)
        WireJSONWriter.changes(page.changes, to: &out)
        out.append(contentsOf: #","cursor":"#.utf8)
        WireJSONWriter.integer(page.cursor, to: &out)
        if let end = page.end {
            out.append(contentsOf: #","end":"#.utf8)
            WireJSONWriter.integer(end, to: &out)
        }
        out.append(contentsOf: #","feed":"#.utf8)
        WireJSONWriter.string(page.feed, to: &out)
        out.append(contentsOf: #","hasMore":"#.utf8)
        out.append(contentsOf: (page.hasMore ? "true" : "false").utf8)
        if let maximum = page.maximumPushBytes {
            out.append(contentsOf: #","maximumPushBytes":"#.utf8)
            WireJSONWriter.integer(Int64(maximum), to: &out)
        }
        out.append(contentsOf: #","pushed":"#.utf8)
        WireJSONWriter.integer(page.pushed, to: &out)
        out.append(contentsOf: #","reset":"#.utf8)
        out.append(contentsOf: (page.reset ? "true" : "false").utf8)
        out.append(UInt8(ascii: "}"))
        return out
    }
}

/// A wire type ``WireJSON`` reads by hand (its `Decodable` conformance is the definition).
package protocol WireJSONDecodable: Decodable {
    /// The value at the reader, or `nil` when the bytes leave the fast reader's subset.
    static func read(_ reader: inout WireJSONReader) -> Self?
}
