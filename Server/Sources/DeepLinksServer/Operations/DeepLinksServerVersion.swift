/// The server's version, in one place: `deeplinks --version`, `/healthz`, the metrics, the start-up line and the
/// `User-Agent` of hooks and webhooks.
public enum DeepLinksServerVersion {
    public static let current = "0.1.0"
}
