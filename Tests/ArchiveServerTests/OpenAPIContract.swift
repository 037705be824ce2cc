import Foundation
import Yams

/// `docs/openapi.yaml` as data, and a check of JSON values against its schemas.
///
/// The check knows the keywords of JSON Schema 2020-12 the document uses, and refuses a
/// schema with any other (``Unknown``), so that the document cannot promise what nothing
/// checks. It is written here because none of the packages this project may build from
/// validates JSON Schema in Swift; `.ci/run`'s schemathesis phase holds the running service
/// to the same document with Python's `jsonschema`.
struct OpenAPIContract {
    /// The document's file.
    static let file = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/openapi.yaml")

    /// A schema keyword the check does not know, or a `$ref` that names nothing.
    struct Unknown: Error, CustomStringConvertible {
        let description: String
    }

    /// The keywords a schema may use: those checked, and the annotations.
    static let keywords: Set<String> = [
        "$ref", "type", "const", "enum", "properties", "required", "additionalProperties", "items", "minItems", "maxItems",
        "minimum", "maximum", "minLength", "maxLength", "pattern", "anyOf", "description", "title",
    ]

    /// The methods an OpenAPI path item may hold operations for.
    static let methods = ["get", "head", "post", "put", "delete", "patch", "options", "trace"]

    let text: String
    let root: [String: Any]

    init() throws {
        text = try String(contentsOf: Self.file, encoding: .utf8)
        guard let root = try Yams.load(yaml: text) as? [String: Any] else { throw Unknown(description: "docs/openapi.yaml is not a mapping") }
        self.root = root
    }

    /// The paths and their path items.
    var paths: [String: [String: Any]] { (root["paths"] as? [String: [String: Any]]) ?? [:] }

    /// Every documented operation, as `METHOD /path` (`GET /v1/sync/pull`).
    var operations: Set<String> {
        Set(paths.flatMap { path, item in Self.methods.filter { item[$0] != nil }.map { "\($0.uppercased()) \(path)" } })
    }

    /// The operation at `method` (`GET`) and `path`, if documented.
    func operation(_ method: String, _ path: String) -> [String: Any]? {
        paths[path]?[method.lowercased()] as? [String: Any]
    }

    /// The response `status` of `operation`, its `$ref` followed.
    func response(_ status: Int, of operation: [String: Any]) throws -> [String: Any]? {
        guard let response = (operation["responses"] as? [String: Any])?["\(status)"] as? [String: Any] else { return nil }
        return try resolve(response)
    }

    /// `node` itself, or what its `$ref` (`#/components/…`) names.
    func resolve(_ node: [String: Any]) throws -> [String: Any] {
        guard let reference = node["$ref"] as? String else { return node }
        guard reference.hasPrefix("#/") else { throw Unknown(description: "\(reference): only references within the document") }
        var current: Any = root
        for part in reference.dropFirst(2).split(separator: "/") {
            guard let next = (current as? [String: Any])?[String(part)] else { throw Unknown(description: "\(reference) names nothing") }
            current = next
        }
        guard let resolved = current as? [String: Any] else { throw Unknown(description: "\(reference) is not a mapping") }
        return try resolve(resolved)
    }

    /// The schema `components.schemas.NAME`.
    func schema(named name: String) throws -> [String: Any] {
        try resolve(["$ref": "#/components/schemas/\(name)"])
    }

    /// What is wrong with `value` against `schema` (empty: it conforms), each at its path.
    func problems(of value: JSONValue, against schema: [String: Any], at path: String = "$") throws -> [String] {
        if let unknown = schema.keys.first(where: { !Self.keywords.contains($0) }) {
            throw Unknown(description: "schema keyword \(unknown) at \(path): the check does not know it")
        }
        if schema["$ref"] != nil { return try problems(of: value, against: resolve(schema), at: path) }
        var found: [String] = []
        if let types = schema["type"] {
            let allowed = (types as? [String]) ?? [(types as? String) ?? ""]
            guard allowed.contains(where: { Self.value(value, isA: $0) }) else { return ["\(path): \(value) is not \(allowed.joined(separator: " or "))"] }
        }
        if let constant = schema["const"], !Self.value(value, equals: constant) { found.append("\(path): \(value) is not \(constant)") }
        if let choices = schema["enum"] as? [Any], !choices.contains(where: { Self.value(value, equals: $0) }) { found.append("\(path): \(value) is none of \(choices)") }
        if let alternatives = schema["anyOf"] as? [[String: Any]] {
            if try alternatives.allSatisfy({ try !problems(of: value, against: $0, at: path).isEmpty }) { found.append("\(path): \(value) matches none of anyOf") }
        }
        switch value {
        case .object(let members):
            let properties = schema["properties"] as? [String: [String: Any]] ?? [:]
            for name in schema["required"] as? [String] ?? [] where members[name] == nil { found.append("\(path): \(name) is missing") }
            for (name, member) in members {
                if let property = properties[name] {
                    found += try problems(of: member, against: property, at: "\(path).\(name)")
                } else if schema["additionalProperties"] as? Bool == false {
                    found.append("\(path): \(name) is not a documented property")
                }
            }
        case .array(let items):
            if let minimum = schema["minItems"] as? Int, items.count < minimum { found.append("\(path): fewer than \(minimum) items") }
            if let maximum = schema["maxItems"] as? Int, items.count > maximum { found.append("\(path): more than \(maximum) items") }
            if let itemSchema = schema["items"] as? [String: Any] {
                for (index, item) in items.enumerated() { found += try problems(of: item, against: itemSchema, at: "\(path)[\(index)]") }
            }
        case .integer(let number):
            if let minimum = schema["minimum"] as? Int, number < Int64(minimum) { found.append("\(path): \(number) < \(minimum)") }
            if let maximum = schema["maximum"] as? Int, number > Int64(maximum) { found.append("\(path): \(number) > \(maximum)") }
        case .string(let text):
            let length = text.unicodeScalars.count
            if let minimum = schema["minLength"] as? Int, length < minimum { found.append("\(path): shorter than \(minimum)") }
            if let maximum = schema["maxLength"] as? Int, length > maximum { found.append("\(path): longer than \(maximum)") }
            if let pattern = schema["pattern"] as? String {
                let expression = try NSRegularExpression(pattern: pattern)
                if expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) == nil { found.append("\(path): \(text.debugDescription) does not match \(pattern)") }
            }
        case .null, .bool, .number: break
        }
        return found
    }

    /// Whether `value` is of JSON Schema type `type` (a whole number is an `integer`).
    private static func value(_ value: JSONValue, isA type: String) -> Bool {
        switch (value, type) {
        case (.null, "null"), (.bool, "boolean"), (.integer, "integer"), (.integer, "number"), (.number, "number"),
             (.string, "string"), (.array, "array"), (.object, "object"): true
        case (.number(let number), "integer"): number.rounded() == number
        default: false
        }
    }

    /// Whether `value` equals the YAML scalar `scalar`.
    private static func value(_ value: JSONValue, equals scalar: Any) -> Bool {
        switch value {
        case .string(let text): (scalar as? String) == text
        case .integer(let number): (scalar as? Int).map(Int64.init) == number
        case .bool(let flag): (scalar as? Bool) == flag
        default: false
        }
    }
}
