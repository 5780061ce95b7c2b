import Crypto
import DeepLinks
import DeepLinksQR
import DeepLinksSupport
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The web console (`/console`): operators sign in with a console role (``OperatorRole``) and manage links, read
/// their counts and QR codes, check the association files and URLs against them, ask the link doctor why a link
/// opened Safari, and (admins) manage API keys and operators.
///
/// - The session is a cookie `deeplinks_console` (`Secure; HttpOnly; SameSite=Strict`), 256 random bits stored as
///   a hash; it ends after 12 hours unused or 7 days.
/// - Every form carries a CSRF token: an HMAC of the session token (before sign-in, the value of a second cookie),
///   compared in constant time; a post without it changes nothing (403).
/// - Pages carry no script (the CSP allows none); roles are enforced here, per route, as on the API.
/// - Sign-in is throttled per client network and per address in the database (every replica counts).
struct ConsoleRoutes: Sendable {
    let operators: Operators
    let store: LinkStore
    let policy: LinkPolicy
    let transfer: LinkTransfer
    let files: AssociationFiles
    let doctor: LinkDoctor
    let hasher: PasswordHasher
    let hashing: InFlightGate
    let proxies: TrustedProxies
    let clock: WallClock
    let networkLimiter: SharedRateLimiter
    let addressLimiter: SharedRateLimiter
    /// Per operator: what makes the server fetch or parse much (a link-doctor diagnosis, an import).
    let costlyLimiter: SharedRateLimiter

    init(
        operators: Operators,
        store: LinkStore,
        policy: LinkPolicy,
        transfer: LinkTransfer,
        files: AssociationFiles,
        doctor: LinkDoctor,
        hasher: PasswordHasher,
        hashing: InFlightGate,
        proxies: TrustedProxies,
        clock: WallClock
    ) {
        self.operators = operators
        self.store = store
        self.policy = policy
        self.transfer = transfer
        self.files = files
        self.doctor = doctor
        self.hasher = hasher
        self.hashing = hashing
        self.proxies = proxies
        self.clock = clock
        networkLimiter = SharedRateLimiter(
            database: operators.database,
            name: "console-sign-in",
            capacity: 20,
            perMinute: 10
        )
        addressLimiter = SharedRateLimiter(
            database: operators.database,
            name: Operators.signInAddressBucket,
            capacity: 5,
            perMinute: 2
        )
        costlyLimiter = SharedRateLimiter(
            database: operators.database,
            name: "console-costly",
            capacity: 30,
            perMinute: 10
        )
    }

    static let sessionCookie = "deeplinks_console"
    static let signInCookie = "deeplinks_console_sign_in"
    /// A browser an operator signed in from (``Operators/rememberDevice(of:)``): 256 random bits, 90 days.
    static let deviceCookie = "deeplinks_console_device"
    /// Links per page of the list.
    static let pageSize = 50

    func register(on router: Router<AppRequestContext>) {
        router.get("/console") { _, _ -> Response in Self.redirect("/console/links") }
        registerSignIn(on: router)
        registerLinks(on: router)
        registerChecks(on: router)
        registerKeys(on: router)
        registerOperators(on: router)
    }
}
