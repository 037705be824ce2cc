import HTTPTypes

/// When a heart was made, on the server's clock. The page sends two times of the browser's
/// clock with each heart, when it was made (`made`) and when it was sent (`sent`), both in
/// Unix milliseconds: their difference is the heart's age, which holds whatever the
/// browser's clock says (a phone set an hour ahead sends an hour-ahead pair), and the heart
/// was made that long before it arrived. A heart kept while offline and sent later thus
/// merges at the time it was made, as any device's change does: a change another device
/// made after it wins, one made before it loses (docs/WEB.md, "Offline").
struct HeartTime: Equatable {
    /// How long before its arrival the heart was made, in milliseconds (never negative).
    let age: Int64

    /// The oldest heart taken: 30 days. An older one is refused (`422`), and the page shows
    /// it refused: a heart from a month ago is more likely a forgotten tab than a wish.
    static let maximumAge: Int64 = 30 * 24 * 3_600_000

    /// The time of the form's `made` and `sent` fields, `nil` when it has neither (a form
    /// posted without the script, made now); refused when one is missing, is not a whole
    /// number of milliseconds, or says the heart was sent before it was made, and when the
    /// heart is older than ``maximumAge``.
    init?(form: [String: String]) throws(WebRefusal) {
        let (madeText, sentText) = (form["made"], form["sent"])
        if madeText == nil && sentText == nil { return nil }
        guard let madeText, let sentText, let made = Int64(madeText), let sent = Int64(sentText), made >= 0, sent >= 0 else {
            throw WebRefusal(.badRequest, "Not a heart", "A heart's times (made and sent) are both whole milliseconds since 1970.")
        }
        guard made <= sent else {
            throw WebRefusal(.badRequest, "Not a heart", "A heart cannot be sent (\(sent)) before it was made (\(made)).")
        }
        guard sent - made <= Self.maximumAge else {
            throw WebRefusal(
                .unprocessableContent, "Too old to send",
                "This heart was made \((sent - made) / 86_400_000) days ago, more than 30: it was not saved. Heart the dish again if you still want it.")
        }
        age = sent - made
    }

    /// When the heart was made, on the server's clock reading `now` (Unix milliseconds).
    func made(now: Int64) -> Int64 { max(0, now - age) }
}
