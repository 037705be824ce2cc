extension Double {
    /// The number without a trailing `.0` when it is whole (`10`, `2.5`), for messages.
    var compactDecimal: String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}
