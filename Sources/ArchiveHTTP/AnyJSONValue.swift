#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Any JSON value at all, read for its syntax only: decoding it succeeds for every
/// well-formed JSON text (an object, an array, a scalar) and fails for anything
/// else, which tells a body that did not decode as a catalog: not JSON, or JSON of
/// the wrong shape.
///
/// `JSONDecoder` checks the structure of the whole text before it decodes, but a
/// number's digits and a string's escapes only when a value is decoded (`[01]`,
/// `["\x"]` pass the first check), so every value is decoded here, down to the
/// leaves. Like Foundation's `JSONSerialization` before it, it accepts a trailing
/// comma (`[1,]`); unlike it, a number beyond every range (`1e400`) is malformed.
struct AnyJSONValue: Decodable {
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // The likeliest first: a catalog is mostly strings in objects.
        if (try? container.decode(String.self)) != nil { return }
        if (try? container.decode([String: AnyJSONValue].self)) != nil { return }
        if (try? container.decode([AnyJSONValue].self)) != nil { return }
        if container.decodeNil() { return }
        if (try? container.decode(Bool.self)) != nil { return }
        if (try? container.decode(Double.self)) != nil { return }
        _ = try container.decode(Decimal.self)  // `-0.0e-5`, `0e5`: valid, refused as Double
    }
}
