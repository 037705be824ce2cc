#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension KeyedDecodingContainer {
    /// The whole number at `key`, or an error that says what is wrong with it: Foundation's
    /// `JSONDecoder` reports a number out of range (a stamp for the year 9999) or a
    /// fraction as "The given data was not valid JSON.", naming nothing.
    func decodeWhole<Number: FixedWidthInteger & Decodable>(_ type: Number.Type, forKey key: Key) throws -> Number {
        do {
            return try decode(Number.self, forKey: key)
        } catch let error as DecodingError {
            switch error {
            case .keyNotFound, .valueNotFound, .typeMismatch: throw error
            default: break
            }
            throw outOfRange(key, Number.self)
        } catch {
            throw outOfRange(key, Number.self)
        }
    }

    /// `decodeWhole` for an optional field.
    func decodeWholeIfPresent<Number: FixedWidthInteger & Decodable>(_ type: Number.Type, forKey key: Key) throws -> Number? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decodeWhole(Number.self, forKey: key)
    }

    private func outOfRange<Number: FixedWidthInteger>(_ key: Key, _ type: Number.Type) -> DecodingError {
        let shown = (try? decode(Decimal.self, forKey: key)).map { "\($0)" } ?? "the number"
        return DecodingError.dataCorrupted(DecodingError.Context(
            codingPath: codingPath + [key],
            debugDescription: "\(key.stringValue) is \(shown.prefix(40)): not a whole number from \(Number.min) to \(Number.max)"))
    }
}
