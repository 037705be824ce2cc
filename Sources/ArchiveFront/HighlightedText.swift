/// A text cut into the parts a keyword matched and the parts it did not, for a
/// front to style: computed from ``SearchKeyword/matchRanges(in:)``, the same
/// match the search made, so a highlight never marks anything else. Each part
/// is already terminal-safe (``TerminalText/visible(_:)``).
public struct HighlightedText: Sendable, Hashable {
    /// One part of the text.
    public struct Segment: Sendable, Hashable {
        /// The part, with control characters shown as visible escapes.
        public let text: String
        /// Whether the keyword matched this part.
        public let isMatch: Bool
    }

    /// The parts, in order; their texts joined are the whole (visible) text.
    public let segments: [Segment]

    /// `text` cut around the matches of `keyword` (one unmatched segment when it is empty).
    public init(_ text: String, keyword: SearchKeyword) {
        segments = keyword.segments(of: text).map { Segment(text: TerminalText.visible($0.text), isMatch: $0.isMatch) }
    }
}
