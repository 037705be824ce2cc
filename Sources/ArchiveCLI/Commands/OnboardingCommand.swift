import ArchiveFront
import ArgumentParser

/// `archive onboarding [status|dismiss|reset]`.
struct OnboardingCommand: ArchiveSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "onboarding",
        abstract: "Read or change the first-launch onboarding flag of the database.")

    enum Operation: String, ExpressibleByArgument, CaseIterable {
        case status, dismiss, reset
    }

    @OptionGroup var global: GlobalOptions
    @ParentCommand var root: ArchiveCommand

    @Argument(help: "status (default), dismiss (never show again) or reset (show again).")
    var operation: Operation = .status

    struct Output: Encodable {
        let showOnboarding: Bool
    }

    func run() async throws {
        try await execute(session: openSession(catalog: .unused))
    }

    @MainActor
    private func execute(session: ArchiveSession) async throws {
        let store = session.makeStore()
        switch operation {
        case .status: store.dispatch(.onboarding(.request))
        case .dismiss: store.dispatch(.onboarding(.close))
        case .reset: store.dispatch(.onboarding(.reset))
        }
        await store.finishEffects()
        let state = store.state.onboardingState
        if let message = state.errorMessage {
            throw CLIError(message)
        }
        if json {
            try JSONOutput.print(Output(showOnboarding: state.showOnboarding))
        } else {
            print(state.showOnboarding ? "onboarding: shown at the next launch" : "onboarding: dismissed")
        }
    }
}
