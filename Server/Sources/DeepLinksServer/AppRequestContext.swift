import Hummingbird

/// The request context of every route: Hummingbird's core storage, with a body limit suited to a JSON API.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
    }

    /// Bodies over 64 KiB are refused with 413 before they are read.
    public var maxUploadSize: Int { 64 * 1024 }
}
