@testable import DeepLinksMail
import Foundation
import Testing

/// Internationalized domains go as ASCII (IDNA), so a relay without SMTPUTF8 delivers them.
@Suite struct IDNATests {
    /// RFC 3492's samples and common names, as Python's `str.encode("punycode")` gives them.
    @Test(arguments: [
        ("bücher", "bcher-kva"), ("münchen", "mnchen-3ya"), ("他们为什么不说中文", "ihqwcrb4cv8a8dqg056pqjye"),
        ("ليهمابتكلموشعربي؟", "egbpdaj6bu4bxfgehfvwxn"), ("ü", "tda"),
    ])
    func punycodeMatchesTheRFC(_ label: String, _ encoded: String) {
        #expect(IDNA.punycode(label) == encoded)
    }

    @Test func anAddressKeepsItsLocalPartAndGetsAnASCIIDomain() {
        #expect(IDNA.address("José@Bücher.Example") == "José@xn--bcher-kva.example")
        #expect(IDNA.address("ada@example.com") == "ada@example.com")
        #expect(IDNA.domain("ＥＸＡＭＰＬＥ.com") == "example.com", "NFKC folds full-width letters")
    }
}
