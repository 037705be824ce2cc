import ArchiveSyncModel
import Foundation
import Synchronization
import TestSupport

/// Devices pushing favorites through one URL (a balancer's) on threads of their own, one push
/// at a time each, until ``finish()``: the load under which a deployment test kills or
/// restarts its parts. A push that fails (refused, cut, no answer) is sent again, as `archive
/// sync` is run again, every 50 ms for up to `retryWithin`; one never acknowledged by then
/// counts as failed.
final class PushLoad: Sendable {
    /// What a load got.
    struct Outcome {
        /// The IDs of the favorites whose push was acknowledged (200).
        fileprivate(set) var acknowledged: Set<Int>
        /// Pushes never acknowledged within the retry bound.
        fileprivate(set) var failed: Int
        /// Pushes acknowledged only after a retry.
        fileprivate(set) var retried: Int
        /// When each acknowledged push was first sent and when it was acknowledged.
        fileprivate(set) var times: [Int: (sent: ContinuousClock.Instant, acknowledged: ContinuousClock.Instant)]

        /// The pushes first sent after `instant` and acknowledged (only a part that came
        /// after it could have answered them).
        func sent(after instant: ContinuousClock.Instant) -> Set<Int> {
            Set(times.filter { $0.value.sent > instant }.keys)
        }

        /// How long after `instant` the first push sent after it was acknowledged.
        func firstAcknowledgement(after instant: ContinuousClock.Instant) -> Duration? {
            times.values.filter { $0.sent > instant }.map(\.acknowledged).min().map { $0 - instant }
        }
    }

    private struct State {
        var outcome = Outcome(acknowledged: [], failed: 0, retried: 0, times: [:])
        var stopping = false
    }

    private let state = Mutex(State())
    private let group = DispatchGroup()
    /// Signalled at each acknowledgement, for ``waitFor(more:within:)``.
    private let acknowledgement = DispatchSemaphore(value: 0)

    /// Starts one device per token in `tokens` (device `0x10 + i`, favorites `i × 100,000 + 1…`)
    /// pushing through `url`.
    init(through url: String, tokens: [String], retryWithin: Duration = .seconds(60)) {
        for (client, token) in tokens.enumerated() {
            DispatchQueue.global().async(group: group) { [self] in
                let device = Changes.device(UInt8(0x10 + client))
                var index = 0
                while !state.withLock({ $0.stopping }) {
                    index += 1
                    let id = client * 100_000 + index
                    let sent = ContinuousClock.now
                    var attempts = 0
                    let done = Deadline.poll(every: .milliseconds(50), within: retryWithin) {
                        attempts += 1
                        let answer = try? ServiceProcess.push(
                            url, [Changes.stored(id, at: 1_700_000_000_000 + Int64(index), by: device)], device: device, token: token)
                        return answer?.status == 200
                    }
                    let now = ContinuousClock.now
                    state.withLock { state in
                        if done {
                            state.outcome.acknowledged.insert(id)
                            state.outcome.times[id] = (sent, now)
                            if attempts > 1 { state.outcome.retried += 1 }
                        } else {
                            state.outcome.failed += 1
                        }
                    }
                    if done { acknowledgement.signal() }
                }
            }
        }
    }

    /// Returns once `count` more pushes than now were acknowledged (`false`: not within `limit`).
    @discardableResult
    func waitFor(more count: Int, within limit: Duration = Deadline.standard) -> Bool {
        let target = acknowledgedCount + count
        let (seconds, attoseconds) = limit.components
        let deadline = DispatchTime.now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        // Each acknowledgement signals once; a signal left from before only costs a look.
        while acknowledgedCount < target {
            if acknowledgement.wait(timeout: deadline) == .timedOut { return acknowledgedCount >= target }
        }
        return true
    }

    /// The number of pushes acknowledged so far.
    var acknowledgedCount: Int { state.withLock { $0.outcome.acknowledged.count } }

    /// Stops the devices after the push each is sending, and returns what the load got.
    func finish() -> Outcome {
        state.withLock { $0.stopping = true }
        group.wait()
        return state.withLock { $0.outcome }
    }
}
