@testable import ReferenceAppSupport
import Testing

/// The reference apps' reset screen, without a screen: every phase and what moves it.
@Suite struct ResetFormTests {
    @Test func aGoodLinkShowsTheFieldsAndAnExpiredOneSaysSo() {
        var form = ResetForm()
        #expect(form.phase == .checking)
        form.checked(maskedEmail: "u***@example.com")
        #expect(form.phase == .ready(maskedEmail: "u***@example.com"))
        var expired = ResetForm()
        expired.checked(maskedEmail: nil)
        #expect(expired.phase == .expired)
        let sent = expired.submit(newPassword: "a long new password", confirmation: "a long new password")
        #expect(!sent)
    }

    @Test(arguments: [
        ("", "", "Enter a new password."),
        ("a long new password", "a long new passw0rd", "The two passwords are not the same."),
    ])
    func fieldsThatCannotBeSentStayOnTheScreenWithTheReason(_ new: String, _ confirmation: String, _ reason: String) {
        var form = ResetForm()
        form.checked(maskedEmail: "u***@example.com")
        let sent = form.submit(newPassword: new, confirmation: confirmation)
        #expect(!sent)
        #expect(form.phase == .ready(maskedEmail: "u***@example.com"))
        #expect(form.problem == reason)
    }

    @Test func aRefusedPasswordKeepsTheLinkAndAnInvalidLinkEndsIt() {
        var form = ResetForm()
        form.checked(maskedEmail: "u***@example.com")
        var sent = form.submit(newPassword: "password", confirmation: "password")
        #expect(sent)
        #expect(form.phase == .saving(maskedEmail: "u***@example.com"))
        form.saved(.failure(.rejected("too_common")))
        #expect(form.phase == .ready(maskedEmail: "u***@example.com") && form.problem == "too_common")
        sent = form.submit(newPassword: "a long new password", confirmation: "a long new password")
        #expect(sent)
        form.saved(.success(()))
        #expect(form.phase == .done && form.problem == nil)
        var spent = ResetForm()
        spent.checked(maskedEmail: "u***@example.com")
        _ = spent.submit(newPassword: "a long new password", confirmation: "a long new password")
        spent.saved(.failure(.invalid(status: 410)))
        #expect(spent.phase == .expired)
    }
}
