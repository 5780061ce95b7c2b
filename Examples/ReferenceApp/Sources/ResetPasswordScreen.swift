import DemoAppRoutes
import SwiftUI

/// The reset screen a reset link opens: the token came in the link's fragment (universal link) or query
/// (custom scheme) and reaches the screen through its `DemoScreen` (`Sensitive`, so never printed), never a log or
/// a URL the app opens. A newer reset link presents a new screen with the newer token.
struct ResetPasswordScreen: View {
    let token: String
    let email: String?
    @EnvironmentObject private var model: AppModel
    @Environment(\.dismiss) private var dismiss
    @State private var phase: Phase = .checking
    @State private var password = ""
    @State private var problem: String?

    enum Phase: Equatable {
        case checking, ready(maskedEmail: String), saving, done, expired
    }

    var body: some View {
        NavigationStack {
            Form {
                switch phase {
                case .checking:
                    ProgressView("Checking the link…")
                case .ready(let masked):
                    Section("New password for \(masked)") {
                        // A hidden username lets the password manager save the new password for the account.
                        TextField("", text: .constant(email ?? "")).textContentType(.username)
                            .hidden()
                        SecureField("New password", text: $password).textContentType(.newPassword)
                    }
                    if let problem { Text(problem).foregroundStyle(.red) }
                    Button("Save") { Task { await save(masked) } }.disabled(password.isEmpty)
                case .saving:
                    ProgressView("Saving…")
                case .done:
                    Text("Your password is changed. Sign in with it.")
                case .expired:
                    Text("This link has expired or was already used. Ask for a new one from the sign-in screen.")
                }
            }
            .navigationTitle("Reset password")
            .toolbar {
                Button("Close") { dismiss() }
            }
        }
        .task { await verify() }
    }

    private func verify() async {
        do {
            phase = .ready(maskedEmail: try await model.api.verifyReset(token: token, email: email))
        } catch {
            phase = .expired
        }
    }

    private func save(_ masked: String) async {
        phase = .saving
        do {
            try await model.api.confirmReset(token: token, email: email, password: password)
            phase = .done
        } catch ServerAPI.Failure.rejected(let reason) {
            // A password the server refuses (too short, too common): the link is still good; try another.
            problem = reason
            phase = .ready(maskedEmail: masked)
        } catch {
            phase = .expired
        }
    }
}
