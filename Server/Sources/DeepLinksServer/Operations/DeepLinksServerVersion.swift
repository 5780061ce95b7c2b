/// The server's version, in one place: `deeplinks --version`, `/healthz`, the metrics, the start-up line, the
/// `User-Agent` of hooks and webhooks, and the release's file names (`scripts/release` reads `current` here).
public enum DeepLinksServerVersion {
    public static let current = "0.2.0"
    /// The commit a release was built from: `scripts/release` writes it here for the build and puts `nil` back
    /// after; a build from a checkout has none.
    public static let commit: String? = nil

    /// `0.2.0 (commit 0123456789ab)`, or the version alone.
    public static var described: String { commit.map { "\(current) (commit \($0))" } ?? current }
}
