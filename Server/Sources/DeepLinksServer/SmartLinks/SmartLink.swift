import DeepLinks
import Foundation

/// A short link: a code on the link domain, the app route it opens, and where each platform goes without
/// the app. Stored as one JSON document per code, so adding a field needs no migration.
///
/// A link without a route is a **web link**: its `destinations.fallback` (required then) is a page on an allowed
/// host, the team's shop or help centre, and every platform is sent there (or to its own destination), counted,
/// QR-coded and previewed like any link; it never offers the app.
public struct SmartLink: Sendable, Codable, Equatable {
    public var code: String
    /// The bundle ID of the app the link opens, when the configuration has several; nil: the primary app.
    public var app: String?
    /// The app's destination, as a path with its query (`/post/10?tag=a`), checked against its route manifest;
    /// nil for a web link.
    public var route: String?
    public var destinations = Destinations()
    public var preview = Preview()
    /// Whether the query of a click (utm_* and the rest) is added to the destination.
    public var passQuery = true
    /// When the link stops opening its destinations (milliseconds since 1970), and where it goes then.
    public var expiresAt: Int64?
    public var expiredURL: String?

    enum CodingKeys: String, CodingKey {
        case code, app, route, destinations, preview, passQuery, expiresAt, expiredURL
    }

    /// Only `code` is required (and a route or a fallback: ``SmartLinkValidator``); the rest has defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decode(String.self, forKey: .code)
        app = try container.decodeIfPresent(String.self, forKey: .app)
        route = try container.decodeIfPresent(String.self, forKey: .route)
        destinations = try container.decodeIfPresent(Destinations.self, forKey: .destinations) ?? Destinations()
        preview = try container.decodeIfPresent(Preview.self, forKey: .preview) ?? Preview()
        passQuery = try container.decodeIfPresent(Bool.self, forKey: .passQuery) ?? true
        expiresAt = try container.decodeIfPresent(Int64.self, forKey: .expiresAt)
        expiredURL = try container.decodeIfPresent(String.self, forKey: .expiredURL)
    }

    public init(code: String, route: String?) {
        self.code = code
        self.route = route
    }

    public struct Destinations: Sendable, Codable, Equatable {
        public var ios: String?
        public var ipad: String?
        public var android: String?
        public var desktop: String?
        public var fallback: String?
    }

    public struct Preview: Sendable, Codable, Equatable {
        public var title: String?
        public var description: String?
        public var image: String?
    }
}
