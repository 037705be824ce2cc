// What building the favorites search index's runs costs in Swift: ArchiveSearch's
// SearchRunBuilder over the same favorites as bulk_index_probe.c (the benchmarks'
// favorites, or `varied`: 48 seeded random kana and kanji in each introduction), given
// newest first, in runs of RUN_SIZE. No database: it times copying the texts into the
// builder and building the runs (cutting, sorting, encoding blocks), then looks four
// keywords up through the runs and checks each answer against a scan (exit 1 on a
// difference), as the C probe does.
//
//   swift build -c release --package-path Benchmarks/probes/run_builder
//   Benchmarks/probes/run_builder/.build/release/RunBuilderProbe N [RUN_SIZE [fixture|varied]]
import ArchiveSearch
import Foundation

// MARK: - Arguments

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("run_builder_probe: \(message)\n".utf8))
    exit(1)
}

/// A whole decimal number in `range`, or a usage error that shows the argument escaped.
func number(_ argument: String, _ name: String, in range: ClosedRange<Int>) -> Int {
    guard let value = Int(argument), range.contains(value) else {
        fail("\(name) must be a whole number in \(range.lowerBound)...\(range.upperBound), not \(argument.debugDescription)")
    }
    return value
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard (1...3).contains(arguments.count) else { fail("usage: RunBuilderProbe N [RUN_SIZE [fixture|varied]]") }
let count = number(arguments[0], "N", in: 1...10_000_000)
let runSize = arguments.count > 1 ? number(arguments[1], "RUN_SIZE", in: 1...1_000_000) : 16_384
let data = arguments.count > 2 ? arguments[2] : "fixture"
guard data == "fixture" || data == "varied" else { fail("the data are fixture or varied, not \(data.debugDescription)") }

// MARK: - The favorites (bulk_index_probe.c's make_favorite)

let categories = ["和食", "洋食", "中華", "イタリアン", "エスニック", "スイーツ"]
let phrases = ["出汁の香る", "炭火で焼いた", "とろけるチーズの", "季節の野菜たっぷりの", "香辛料の効いた", "ふわふわ食感の"]

func variedSentence(_ number: Int) -> String {
    var state: UInt32 = 2_463_534_242 ^ (UInt32(truncatingIfNeeded: number) &* 2_654_435_761)
    var scalars = String.UnicodeScalarView()
    for _ in 0..<48 {
        state ^= state << 13
        state ^= state >> 17
        state ^= state << 5
        let pick = state % 3176
        let value = pick < 86 ? 0x3041 + pick : pick < 176 ? 0x30A1 + pick - 86 : 0x4E00 + pick - 176
        if let scalar = Unicode.Scalar(value) { scalars.append(scalar) }
    }
    return String(scalars)
}

func fields(_ number: Int) -> [String] {
    let id = number * 2
    let phrase = phrases[number % 6]
    let sentence = data == "varied" ? variedSentence(number) : "毎日仕込む自家製のソースと、厳選した食材で作る当店自慢の料理です。"
    return ["https://photos.favorite-archive.example/dishes/\(id).jpg", categories[number % 6], "\(phrase)料理 \(id)",
            "お店 \(number % 997) 号店", "\(phrase)一皿。\(sentence)番号 \(id)"]
}

let favorites = (1...count).map(fields)

// MARK: - Building the runs

var runs: [SearchRun] = []
var builder = SearchRunBuilder(capacity: min(runSize, count))
var addSeconds = 0.0
var buildSeconds = 0.0
let clock = ContinuousClock()

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

for number in stride(from: count, through: 1, by: -1) {
    addSeconds += seconds(clock.measure { builder.add(id: number * 2, fields: favorites[number - 1]) })
    if builder.count == runSize || number == 1 {
        var run: SearchRun?
        buildSeconds += seconds(clock.measure { run = builder.build() })
        if let run { runs.append(run) }
    }
}
let blocks = runs.reduce(0) { $0 + $1.blocks.count }
let bytes = runs.reduce(0) { $0 + $1.blocks.reduce(0) { $0 + $1.bytes.count } }
print(String(format: "%@: %d favorites in runs of %d: add %.3f s, build %.3f s (%.2f us a favorite); %d runs, %d blocks, %.1f MB",
             data, count, runSize, addSeconds, buildSeconds, buildSeconds * 1e6 / Double(count), runs.count, blocks, Double(bytes) / 1e6))

// MARK: - Checking lookups against a scan

var differences = 0
for text in ["番号 12346", "番号 12", "炭火で焼いた料理 24", "寿司屋", "蕎", "料理"] {
    let keyword = SearchKeyword(text)
    guard let lookups = SearchGramKey.lookups(for: keyword) else { fail("no lookups for \(text)") }
    var candidates: [Int] = []
    do {
        for run in runs {
            var ids: [Int]?
            for lookup in lookups {
                let found = try run.ids(in: lookup)
                ids = ids.map { SearchIDSet.intersection($0, found) } ?? found
            }
            candidates += ids ?? []
        }
    } catch {
        fail("\(error)")
    }
    let matches = { (id: Int) in favorites[id / 2 - 1].contains(where: keyword.matches) }
    let found = SearchIDSet.sortedUnique(candidates).filter(matches)
    let scanned = (1...count).map { $0 * 2 }.filter(matches)
    print("\(text.debugDescription): \(found.count) favorites through the runs (\(candidates.count) candidates), \(scanned.count) by the scan")
    if found != scanned { differences += 1 }
}
if differences > 0 { fail("\(differences) keywords found other favorites through the runs than by the scan") }
