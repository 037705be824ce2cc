/// An action's name and a short summary of its payload, read by reflection
/// (only when the action log is on), so that a new action is logged without
/// anyone writing its summary.
enum ActionSummary {
    /// The longest payload summary, in characters.
    static let maximumLength = 240
    /// The longest text quoted in a summary.
    static let maximumText = 60

    /// `archive.requestWithInputText` and `"チーズ"` for `.archive(.requestWithInputText("チーズ"))`.
    static func describe(_ action: AppAction) -> (name: String, payload: String?) {
        var path: [String] = []
        var value: Any = action
        while true {
            let mirror = Mirror(reflecting: value)
            guard mirror.displayStyle == .enum, let child = mirror.children.first, let label = child.label else {
                path.append(String(describing: value))  // a case without payload
                return (path.joined(separator: "."), nil)
            }
            path.append(label)
            // The app's action wraps one screen's action: name both cases.
            if path.count == 1, Mirror(reflecting: child.value).displayStyle == .enum {
                value = child.value
                continue
            }
            return (path.joined(separator: "."), truncated(summary(child.value, depth: 0)))
        }
    }

    private static func truncated(_ text: String) -> String {
        text.count <= maximumLength ? text : String(text.prefix(maximumLength - 1)) + "…"
    }

    /// A value in a few words: texts quoted (shortened), collections as counts,
    /// structures by their fields (three levels deep).
    static func summary(_ value: Any, depth: Int) -> String {
        switch value {
        case let text as String:
            return "\"" + (text.count <= maximumText ? text : String(text.prefix(maximumText)) + "…") + "\""
        case let number as Int:
            return String(number)
        case let flag as Bool:
            return String(flag)
        case let number as Double:
            return String(number)
        default:
            break
        }
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .collection, .set, .dictionary:
            return "[\(mirror.children.count) items]"
        case .optional:
            return mirror.children.first.map { summary($0.value, depth: depth) } ?? "nil"
        case .enum:
            guard let child = mirror.children.first, let label = child.label else { return String(describing: value) }
            return "\(label)(\(summary(child.value, depth: depth + 1)))"
        case .tuple:
            return mirror.children.map { child in
                (child.label.map { $0.hasPrefix(".") ? "" : "\($0): " } ?? "") + summary(child.value, depth: depth + 1)
            }.joined(separator: ", ")
        default:
            let type = String(describing: mirror.subjectType)
            guard depth < 3, !mirror.children.isEmpty, mirror.children.count <= 8 else { return type }
            let fields = mirror.children.map { "\($0.label ?? "_"): \(summary($0.value, depth: depth + 1))" }
            return "\(type)(\(fields.joined(separator: ", ")))"
        }
    }
}
