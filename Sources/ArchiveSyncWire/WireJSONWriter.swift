/// The bytes of the wire's JSON values, appended: strings escaped as JSON requires (quotes,
/// backslashes and control characters; every other scalar as its UTF-8), integers in decimal.
enum WireJSONWriter {
    static func string(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    static func integer(_ value: Int64, to out: inout [UInt8]) {
        out.append(contentsOf: String(value).utf8)
    }

    /// `changes` as a JSON array, each as `WireChange` encodes (a removal without `favorite`).
    static func changes(_ changes: [WireChange], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (index, change) in changes.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"id":"#.utf8)
            integer(Int64(change.id), to: &out)
            out.append(contentsOf: #","stamp":"#.utf8)
            integer(change.stamp, to: &out)
            out.append(contentsOf: #","device":"#.utf8)
            string(change.device, to: &out)
            if let favorite = change.favorite {
                out.append(contentsOf: #","favorite":{"photoUrl":"#.utf8)
                string(favorite.photoUrl, to: &out)
                out.append(contentsOf: #","category":"#.utf8)
                string(favorite.category, to: &out)
                out.append(contentsOf: #","dishName":"#.utf8)
                string(favorite.dishName, to: &out)
                out.append(contentsOf: #","shopName":"#.utf8)
                string(favorite.shopName, to: &out)
                out.append(contentsOf: #","introduction":"#.utf8)
                string(favorite.introduction, to: &out)
                out.append(contentsOf: #","storedAt":"#.utf8)
                integer(favorite.storedAt, to: &out)
                out.append(UInt8(ascii: "}"))
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
    }
}
