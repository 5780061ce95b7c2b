import UIKit

/// The reset screen a reset link opens (seed 000's journey): a new password and its confirmation, Save, then an
/// alert that says it is done. The token came in the link (fragment or query) through its screen, and lives only
/// in this controller; the form's logic (`ResetForm`, shared with the SwiftUI app and tested on Linux) decides what is shown.
final class ResetPasswordViewController: UIViewController {
    private let token: String
    private let email: String?
    private let api: ServerAPI
    private var form = ResetForm()

    private let message = UILabel()
    private let newPassword = UITextField()
    private let confirmation = UITextField()
    private var save: UIButton?

    init(token: String, email: String?, api: ServerAPI) {
        self.token = token
        self.email = email
        self.api = api
        super.init(nibName: nil, bundle: nil)
        title = "Reset password"
    }

    required init?(coder: NSCoder) { nil }

    override func loadView() {
        message.numberOfLines = 0
        for (field, placeholder) in [(newPassword, "New password"), (confirmation, "Confirm new password")] {
            field.placeholder = placeholder
            field.isSecureTextEntry = true
            field.textContentType = .newPassword  // the password manager offers a strong one, and saves it
        }
        let save = UIButton(type: .system, primaryAction: UIAction(title: "Save") { [weak self] _ in self?.submit() })
        self.save = save
        let stack = UIStackView(arrangedSubviews: [message, newPassword, confirmation, save])
        stack.axis = .vertical
        stack.spacing = 12
        view = stack
    }

    override func viewDidLoad() {
        super.viewDidLoad()
        render()
        Task {
            let masked = try? await api.verifyReset(token: token, email: email)
            form.checked(maskedEmail: masked)
            render()
        }
    }

    private func submit() {
        guard form.submit(newPassword: newPassword.text ?? "", confirmation: confirmation.text ?? "") else {
            render()
            return
        }
        render()
        let password = newPassword.text ?? ""
        Task {
            do {
                try await api.confirmReset(token: token, email: email, password: password)
                form.saved(.success(()))
            } catch let failure as ServerAPI.Failure {
                form.saved(.failure(failure))
            } catch {
                form.saved(.failure(.invalid(status: 0)))
            }
            render()
            if form.phase == .done { confirmDone() }
        }
    }

    private func render() {
        let editable: Bool
        switch form.phase {
        case .checking:
            message.text = "Checking the link…"
            editable = false
        case .ready(let masked):
            message.text = (form.problem.map { "\($0)\n" } ?? "") + "New password for \(masked)"
            editable = true
        case .saving:
            message.text = "Saving…"
            editable = false
        case .done:
            message.text = "Your password is changed. Sign in with it."
            editable = false
        case .expired:
            message.text = "This link has expired or was already used. Ask for a new one from the sign-in screen."
            editable = false
        }
        newPassword.isEnabled = editable
        confirmation.isEnabled = editable
        save?.isEnabled = editable
    }

    private func confirmDone() {
        let alert = UIAlertController(
            title: "Password changed",
            message: "Sign in with your new password.",
            preferredStyle: .alert
        )
        alert.addAction(UIAlertAction(title: "OK", style: .default) { [weak self] _ in self?.dismiss(animated: true) })
        present(alert, animated: true)
    }
}
