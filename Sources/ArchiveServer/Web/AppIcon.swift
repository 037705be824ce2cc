/// The app's icon, drawn: a white heart on the page's accent colour, filling the square
/// (the heart within the middle 80 % circle, so that a launcher's round or squircle mask keeps it:
/// the manifest says `any maskable`). PNG at the sizes the manifest lists, made once.
enum AppIcon {
    /// The sizes served, in pixels: what Chromium asks an installable app for (192 and 512).
    static let sizes = [192, 512]

    /// The PNG of each size, drawn at first use.
    static let files: [Int: [UInt8]] = {
        var files: [Int: [UInt8]] = [:]
        for size in sizes { files[size] = try? PNGImage(width: size, height: size, rgba: pixels(size: size)).encoded() }
        return files
    }()

    /// The address of the icon of `size` pixels.
    static func path(size: Int) -> String { "/web/icon-\(size).png" }

    /// RGBA of a `size` × `size` icon: the heart's curve `(x² + y² − 1)³ − x² y³ ≤ 0`,
    /// sampled four times a pixel for smooth edges.
    static func pixels(size: Int) -> [UInt8] {
        var rgba = [UInt8](repeating: 0, count: size * size * 4)
        let accent: (Double, Double, Double) = (0xD2, 0x33, 0x5C)
        let scale = Double(size) * 0.25
        for row in 0..<size {
            for column in 0..<size {
                var inside = 0
                for sample in 0..<4 {
                    let x = (Double(column) + 0.25 + 0.5 * Double(sample % 2) - Double(size) / 2) / scale
                    let y = -(Double(row) + 0.25 + 0.5 * Double(sample / 2) - Double(size) * 0.52) / scale
                    let curve = x * x + y * y - 1
                    if curve * curve * curve - x * x * y * y * y <= 0 { inside += 1 }
                }
                let white = Double(inside) / 4
                let index = (row * size + column) * 4
                rgba[index] = UInt8(accent.0 + (255 - accent.0) * white)
                rgba[index + 1] = UInt8(accent.1 + (255 - accent.1) * white)
                rgba[index + 2] = UInt8(accent.2 + (255 - accent.2) * white)
                rgba[index + 3] = 255
            }
        }
        return rgba
    }
}
