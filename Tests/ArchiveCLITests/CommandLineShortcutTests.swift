import ArgumentParser
import Foundation
import TestSupport
import Testing

@testable import ArchiveCLI

/// ``CommandLineShortcut`` reads what it accepts exactly as ArgumentParser
/// does, and leaves everything else to it.
@Suite(.timeLimit(.minutes(5)))
struct CommandLineShortcutTests {
    /// What ArgumentParser makes of `arguments`: the same request the shortcut
    /// would give, `.otherCommand` for a command the shortcut never runs, or
    /// `.rejected` for a usage error, help or a completion script.
    enum Reference: Equatable {
        case request(CommandLineShortcut)
        case otherCommand
        case rejected
    }

    static func reference(_ arguments: [String]) -> Reference {
        let command: any ParsableCommand
        do {
            command = try ArchiveCommand.parseAsRoot(arguments)
        } catch {
            return .rejected
        }
        switch command {
        case let search as SearchCommand: return .request(.search(search.request))
        case let add as StorageCommand<AddOperation>: return .request(.add(add.request))
        case let remove as StorageCommand<RemoveOperation>: return .request(.remove(remove.request))
        default: return .otherCommand
        }
    }

    /// The command lines a user types most, which the shortcut must take itself.
    static let everyday: [[String]] = [
        ["search", "チーズ", "--category", "洋食"],
        ["search", "チーズ", "-c", "洋食", "--database", "/tmp/f.sqlite3"],
        ["--database", "/tmp/f.sqlite3", "search", "チーズ"],
        ["search"], ["search", "--last"], ["search", "--json", "--last"], ["--json", "search", "-c", "和食"],
        ["search", ""], ["search", "--category", ""], ["search", "search"], ["search", "--database", "search", "add"],
        ["add", "17"], ["add", "17", "--json"], ["--json", "add", "+17"], ["add", "017", "--database", "/tmp/f.sqlite3"],
        ["remove", "66"], ["--database", "/tmp/f.sqlite3", "remove", "9223372036854775807"],
        ["search", "x", "--api-url", "http://127.0.0.1:3000", "--timeout", "2.5", "--log-actions", "/tmp/log"],
        ["--timeout", "1e2", "add", "5"], ["search", "--timeout", "86400"],
    ]

    @Test func everydayCommandLinesTakeTheShortcutAndMeanWhatArgumentParserReads() {
        for arguments in Self.everyday {
            let shortcut = CommandLineShortcut(arguments: arguments)
            #expect(shortcut != nil, "\(arguments) should not need ArgumentParser")
            if let shortcut {
                #expect(Self.reference(arguments) == .request(shortcut), "\(arguments)")
            }
        }
        #expect(CommandLineShortcut(arguments: ["search", "チーズ", "--category", "洋食"])
            == .search(SearchRequest(keyword: "チーズ", category: "洋食")))
    }

    /// Command lines the shortcut must leave to ArgumentParser: help, errors,
    /// forms it does not read, every other command.
    @Test func everythingElseIsLeftToArgumentParser() {
        let others: [[String]] = [
            [], ["--help"], ["search", "--help"], ["search", "-h"], ["help", "search"], ["--version"],
            ["search", "--category=洋食"], ["search", "--", "-x"], ["search", "a", "b"], ["search", "-c"],
            ["search", "--category", "a", "-c", "b"], ["search", "--last", "x"], ["search", "--last", "-c", "洋食"],
            ["search", "--json", "--json"], ["--json", "search", "--json"], ["--database", "a", "search", "--database", "b"],
            ["search", "--database"], ["search", "--database", ""], ["search", "--database", "-x"], ["search", "--bogus"],
            ["search", "-"], ["search", "-5"], ["search", "-\u{301}"], ["search", "--database", "-\u{301}"], ["--category", "洋食", "search"], ["--last", "search"],
            ["search", "--timeout", "0"], ["search", "--timeout", "nan"], ["search", "--timeout", "x"], ["search", "--timeout", "-1"],
            ["search", "--api-url", ""], ["search", "--log-actions", ""],
            ["add"], ["add", "0"], ["add", "-5"], ["add", "1", "2"], ["add", "x"], ["add", "--", "17"], ["add", "17", "--last"],
            ["add", "17", "-c", "x"], ["add", "99999999999999999999"], ["remove"], ["remove", "1.5"],
            ["favorites"], ["categories"], ["import", "x.json"], ["export"], ["Search", "x"],
            ["--generate-completion-script", "bash"], ["search", "--generate-completion-script", "bash"],
        ]
        for arguments in others {
            #expect(CommandLineShortcut(arguments: arguments) == nil, "\(arguments) should go to ArgumentParser")
        }
    }

    /// Thousands of generated command lines, from a fixed seed: whatever the
    /// shortcut accepts, ArgumentParser parses to the same request.
    @Test func generatedCommandLinesAgreeWithArgumentParser() {
        let vocabulary = [
            "search", "add", "remove", "favorites", "help", "チーズ", "洋食", "17", "0", "-5", "+3", "", " ",
            "--category", "-c", "--last", "--json", "--database", "/tmp/f.sqlite3", "--api-url", "http://127.0.0.1:3000",
            "--timeout", "5", "nan", "1e9", "0x10", "--log-actions", "--", "-", "--help", "-h", "--category=洋食", "--bogus",
            "-cx", "--jso", "search", "-\u{301}", "\u{2010}c",
        ]
        // Mostly tokens of valid command lines, so that many are accepted; a third from the whole vocabulary.
        let shared = ["--json", "--database", "/tmp/f.sqlite3", "--timeout", "5", "--api-url", "http://127.0.0.1:3000"]
        let plausible = [
            "search": shared + ["チーズ", "洋食", "--last", "--category", "-c"],
            "add": shared + ["17", "+3", "017"], "remove": shared + ["17", "9"],
        ]
        var generator = SeededGenerator(seed: 0x5EED)
        func token(_ subcommand: String) -> String {
            let words = generator.next() % 3 == 0 ? vocabulary : plausible[subcommand] ?? vocabulary
            return words[Int(generator.next() % UInt64(words.count))]
        }
        var accepted: [String: Int] = [:]
        for _ in 0..<4_000 {
            let subcommand = ["search", "add", "remove"][Int(generator.next() % 3)]
            var arguments = (0..<Int(generator.next() % 3)).map { _ in token("") }
            if generator.next() % 10 != 0 { arguments.append(subcommand) }
            arguments += (0..<Int(generator.next() % 5)).map { _ in token(subcommand) }
            guard let shortcut = CommandLineShortcut(arguments: arguments) else { continue }
            accepted[arguments.first { ["search", "add", "remove"].contains($0) } ?? "", default: 0] += 1
            #expect(Self.reference(arguments) == .request(shortcut), "\(arguments)")
        }
        // The generator reaches the shortcut's paths, not only its refusals.
        #expect(accepted["search", default: 0] >= 100 && accepted["add", default: 0] >= 30 && accepted["remove", default: 0] >= 30,
                "too few generated command lines were accepted: \(accepted)")
    }

    /// The real binary answers a shortcut's command line as it answers the same
    /// request parsed by ArgumentParser (`--category=…` and `--` are not shortcut forms).
    @Test func theBinaryAnswersAShortcutAsItAnswersTheParsedCommand() throws {
        // The same steps on two databases: one through the shortcut, one through ArgumentParser.
        let (viaShortcut, viaParser) = (try CLI(), try CLI())
        let steps: [([String], [String])] = [
            (["search", "チーズ", "--category", "洋食"], ["search", "--category=洋食", "チーズ"]),
            (["search", "チーズ", "--category", "洋食", "--json"], ["search", "--category=洋食", "--json", "--", "チーズ"]),
            (["search", "--last"], ["search", "--last", "--"]),
            (["add", "17"], ["add", "--", "17"]),
            (["add", "17", "--json"], ["add", "--json", "--", "17"]),
            (["search", "チーズ"], ["search", "--", "チーズ"]),  // ♥ on 17
            (["remove", "17"], ["remove", "--", "17"]),
            (["remove", "17"], ["remove", "--", "17"]),  // no longer stored: exit 1, the same message
            (["add", "424242"], ["add", "--", "424242"]),  // not in the catalog: the same error
            (["search", "x", "--api-url", "http://127.0.0.1:1", "--timeout", "2"],  // an unreachable catalog
             ["search", "--api-url=http://127.0.0.1:1", "--timeout", "2", "--", "x"]),
        ]
        var statuses: [Int32] = []
        for (shortcut, parsed) in steps {
            #expect(CommandLineShortcut(arguments: shortcut + ["--database", "f"]) != nil, "\(shortcut)")
            #expect(CommandLineShortcut(arguments: parsed + ["--database", "f"]) == nil, "\(parsed)")
            let first = try viaShortcut.run(shortcut)
            let second = try viaParser.run(parsed)
            #expect(first.status == second.status, "\(shortcut): \(first.stderr) / \(second.stderr)")
            #expect(first.stdout == second.stdout, "\(shortcut)")
            #expect(first.stderr == second.stderr, "\(shortcut)")
            statuses.append(first.status)
        }
        // The steps reach success and failure alike.
        #expect(statuses == [0, 0, 0, 0, 0, 0, 0, 1, 1, 0])  // offline: the favorites answer, exit 0
    }
}
