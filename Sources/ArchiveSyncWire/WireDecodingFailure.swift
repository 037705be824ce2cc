/// What is wrong with a sync API body that does not decode, in one phrase with where
/// (`changes[3].stamp: stamp is 16606973747200000000: not a whole number from …`), without
/// Swift's debug noise: what `archive-server` answers a bad push and what `archive sync`
/// says of a bad answer.
public enum WireDecodingFailure {
    /// The phrase for `error` (any error: a `DecodingError` is said with its path).
    public static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .dataCorrupted(let context):
            return located(context.codingPath, context.debugDescription)
        case .keyNotFound(let key, let context):
            return located(context.codingPath, "\(key.stringValue) is missing")
        case .typeMismatch(let type, let context):
            return located(context.codingPath, "expected \(name(of: type))")
        case .valueNotFound(let type, let context):
            return located(context.codingPath, "expected \(name(of: type)), found null")
        @unknown default:
            return "\(error)"
        }
    }

    private static func located(_ codingPath: [any CodingKey], _ text: String) -> String {
        let path = codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
        guard !path.isEmpty else { return text }
        return (path.hasPrefix(".") ? String(path.dropFirst()) : path) + ": " + text
    }

    private static func name(of type: Any.Type) -> String {
        switch String(describing: type) {
        case let name where name.hasPrefix("Array"): "an array"
        case let name where name.hasPrefix("Dictionary"): "an object"
        case "Int", "Int64": "a whole number"
        case "String": "a string"
        case "Bool": "true or false"
        case let name: name
        }
    }
}
