import ArchiveSyncWire
import Foundation
import TestSupport
import Testing

/// `archive-server --metrics-port P` on the real binary and both backends: `/metrics` on
/// 127.0.0.1 in Prometheus's text format counts the requests a test made by route and
/// status (with their durations), the changes pushed and pulled, and the refusals by
/// reason, and passes `promtool check metrics`; each request's log line carries the ID
/// Hummingbird gave it. Issue 59, §4; issue 73 §1.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct ServiceMetricsTests {
    /// The samples of the exposition `text`: each line `name{labels} value` without comments.
    private func samples(_ text: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    @Test(arguments: ServiceBackend.allCases)
    func theMetricsCountTheRequestsATestMade(backend: ServiceBackend) throws {
        let server = try ServiceProcess(backend, arguments: ["--metrics-port", "0"])
        let metricsURL = try #require(server.process.nextLine()?.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(metricsURL.hasPrefix("http://127.0.0.1:") && metricsURL.hasSuffix("/metrics"), "\(metricsURL)")
        let tokens = try server.addUserWithDevices("alice")
        let phone = Changes.device(0x01), laptop = Changes.device(0x02)
        #expect(try server.push((1...3).map { Changes.stored($0, at: 1_000, by: phone) }, device: phone, through: 3, token: try tokens(phone)).status == 200)
        #expect(try server.push([Changes.stored(1, at: 1_000, by: phone)], device: phone, through: 3, token: try tokens(phone)).status == 200)
        #expect(try server.pull(device: laptop, token: try tokens(laptop)).1?.changes.count == 3)
        #expect(try server.pull(device: laptop, token: "fa_" + String(repeating: "x", count: 43)).0.status == 401)
        #expect(try server.pull(device: phone, token: try tokens(laptop)).0.status == 403)
        #expect(try server.call("GET", "/random-\(UUID().uuidString)").status == 404)

        let port = try #require(URL(string: metricsURL)?.port)
        let answer = try ServiceProcess.call("http://127.0.0.1:\(port)", "GET", "/metrics")
        #expect(answer.status == 200 && answer.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true, "\(answer.status)")
        let got = samples(answer.text)
        let push = #"http_route="/v1/sync/push",http_request_method="POST",http_response_status_code="200""#
        let pull = #"http_route="/v1/sync/pull",http_request_method="GET""#
        #expect(got["hb_requests_total{\(push)}"] == 2, "\(answer.text)")
        #expect(got["http_server_request_duration_seconds_count{\(push)}"] == 2)
        #expect(got["hb_requests_total{\(pull),http_response_status_code=\"200\"}"] == 1)
        #expect(got["hb_requests_total{\(pull),http_response_status_code=\"401\"}"] == 1)
        #expect(got["hb_requests_total{\(pull),http_response_status_code=\"403\"}"] == 1)
        // A path of no route is one series, whatever the path (the router's `NotFound`).
        #expect(got[#"hb_requests_total{http_route="NotFound",http_request_method="GET",http_response_status_code="404"}"#] == 1)
        #expect(got[#"archive_sync_changes_pushed_total{result="applied"}"#] == 3)
        #expect(got[#"archive_sync_changes_pushed_total{result="already_held"}"#] == 1)
        #expect(got["archive_sync_changes_pulled_total"] == 3)
        for reason in ["unauthorized", "another_device", "not_found"] {
            #expect(got["archive_sync_refusals_total{reason=\"\(reason)\"}"] == 1, "\(reason)")
        }
        #expect(got["archive_storage_calls_in_flight"] == 0)
        // Errors by a status of success are no series (before: hb_request_errors_total with
        // error_type="200" beside every route answered 200).
        let errorSeries = got.keys.filter { $0.hasPrefix("hb_request_errors_total{") }
        #expect(errorSeries.allSatisfy { !$0.contains(#"error_type="2"#) && !$0.contains(#"error_type="3"#) }, "\(errorSeries)")
        // Prometheus's own linter takes it (before: exit 3, counters without `_total`, no
        // help text): every family has `# HELP`; counters end in `_total`.
        let lint = try ChildProcess.run("/usr/bin/promtool", ["check", "metrics"], input: .pipe(Data(answer.text.utf8)), timeout: .seconds(60))
        #expect(lint.status == 0, "promtool: \(lint.stdout)\(lint.stderr)")
        let families = answer.text.split(separator: "\n").compactMap { line -> (String, String)? in
            let words = line.split(separator: " ")
            return words.count == 4 && words[1] == "TYPE" ? (String(words[2]), String(words[3])) : nil
        }
        #expect(families.count >= 8, "\(families)")
        for (name, type) in families {
            #expect(answer.text.contains("# HELP \(name) "), "\(name) has no help text")
            #expect(type != "counter" || name.hasSuffix("_total"), "\(name)")
        }
        // Nothing of a user's in it: no name, no token.
        #expect(!answer.text.contains("alice") && !answer.text.contains("fa_"))

        // Each request's log line: Hummingbird's ID of it (16 random hexadecimal digits, not
        // padded, then a 16-digit count).
        let stopped = try #require(server.stop())
        let lines = stopped.stderr.split(separator: "\n").filter { $0.contains("path=/v1/sync/push") }
        #expect(lines.count == 2 && lines.allSatisfy { $0.firstMatch(of: /request=[0-9a-f]{17,32}\b/) != nil }, "\(lines)")
    }

    @Test func aMetricsPortInUseStopsTheStart() throws {
        let server = try ServiceProcess(arguments: ["--metrics-port", "0"])
        let metricsURL = try #require(server.process.nextLine()?.trimmingCharacters(in: .whitespacesAndNewlines))
        let port = try #require(URL(string: metricsURL)?.port)
        let taken = try ChildProcess.run(
            ServiceProcess.executable.path, ["--database", server.directory.path("other.sqlite3"), "--port", "0", "--metrics-port", "\(port)"],
            environment: ServiceProcess.environment(server.directory), timeout: .seconds(60))
        #expect(taken.status != 0 && taken.stderr.contains("cannot serve the metrics on 127.0.0.1:\(port): the address is already in use"), "\(taken.stderr)")
    }
}
