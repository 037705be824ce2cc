/// Fast, allocation-free ISO 8601 dates with milliseconds, as the export format writes them:
/// `2026-11-22T04:19:57.123Z`. Parsing also accepts no or other fraction digits and `±HH:MM` offsets.
/// Here, beside the favorite's stored time, so that every side writes a time alike without
/// Foundation.
package enum ISO8601Milliseconds {
    /// Unix milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC), clamped as ``append(_:to:)`` does.
    package static func string(_ milliseconds: Int64) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        append(milliseconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Formats Unix milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ`, appending the bytes to `output`.
    ///
    /// Exact for ``StoredArchiveObject/storedAtRange`` (years 0001 to 9999), the only
    /// values a stored favorite can hold; others are clamped to that range, never trapped on.
    package static func append(_ milliseconds: Int64, to output: inout [UInt8]) {
        let range = StoredArchiveObject.storedAtRange
        let milliseconds = min(max(milliseconds, range.lowerBound), range.upperBound)
        let (days, millisecondOfDay) = floorDivide(milliseconds, 86_400_000)
        let (year, month, day) = civil(fromDays: days)
        let seconds = millisecondOfDay / 1000
        func two(_ value: Int64) {
            output.append(UInt8(48 + value / 10))
            output.append(UInt8(48 + value % 10))
        }
        output.append(UInt8(48 + year / 1000))
        output.append(UInt8(48 + year / 100 % 10))
        two(year % 100)
        output.append(UInt8(ascii: "-"))
        two(month)
        output.append(UInt8(ascii: "-"))
        two(day)
        output.append(UInt8(ascii: "T"))
        two(seconds / 3600)
        output.append(UInt8(ascii: ":"))
        two(seconds / 60 % 60)
        output.append(UInt8(ascii: ":"))
        two(seconds % 60)
        output.append(UInt8(ascii: "."))
        let fraction = millisecondOfDay % 1000
        output.append(UInt8(48 + fraction / 100))
        two(fraction % 100)
        output.append(UInt8(ascii: "Z"))
    }

    /// Parses an ISO 8601 date-time into Unix milliseconds; `nil` when `bytes` is not one.
    package static func parse(_ bytes: ArraySlice<UInt8>) -> Int64? {
        var cursor = bytes.startIndex
        func number(_ digits: Int) -> Int64? {
            guard bytes.endIndex - cursor >= digits else { return nil }
            var value: Int64 = 0
            for _ in 0..<digits {
                let byte = bytes[cursor]
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
                cursor += 1
            }
            return value
        }
        func expect(_ character: UInt8) -> Bool {
            guard cursor < bytes.endIndex, bytes[cursor] == character else { return false }
            cursor += 1
            return true
        }
        guard let year = number(4), expect(UInt8(ascii: "-")), let month = number(2), expect(UInt8(ascii: "-")),
            let day = number(2), expect(UInt8(ascii: "T")) || expect(UInt8(ascii: "t")) || expect(UInt8(ascii: " ")),
            let hour = number(2), expect(UInt8(ascii: ":")), let minute = number(2), expect(UInt8(ascii: ":")),
            let second = number(2)
        else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var milliseconds: Int64 = 0
        if expect(UInt8(ascii: ".")) {
            var scale: Int64 = 100
            var digits = 0
            while cursor < bytes.endIndex, bytes[cursor] >= 48, bytes[cursor] <= 57 {
                milliseconds += Int64(bytes[cursor] - 48) * scale
                scale /= 10
                digits += 1
                cursor += 1
            }
            guard digits > 0 else { return nil }
        }
        var offsetMinutes: Int64 = 0
        if expect(UInt8(ascii: "Z")) || expect(UInt8(ascii: "z")) {
            offsetMinutes = 0
        } else if cursor < bytes.endIndex, bytes[cursor] == UInt8(ascii: "+") || bytes[cursor] == UInt8(ascii: "-") {
            let sign: Int64 = bytes[cursor] == UInt8(ascii: "-") ? -1 : 1
            cursor += 1
            guard let hours = number(2), expect(UInt8(ascii: ":")), let minutes = number(2), hours < 24, minutes < 60 else {
                return nil
            }
            offsetMinutes = sign * (hours * 60 + minutes)
        } else {
            return nil
        }
        guard cursor == bytes.endIndex else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let secondsOfDay = hour * 3600 + minute * 60 + second - offsetMinutes * 60
        return (days * 86_400 + secondsOfDay) * 1000 + milliseconds
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian, after H. Hinnant)

    /// Floor division that cannot overflow (`Int64.min` included).
    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    package static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    package static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
