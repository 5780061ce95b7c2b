import DeepLinks
import Foundation

/// A short link: a code on the link domain, the app route it opens, and where each platform goes without
/// the app. Stored as one JSON document per code, so adding a field needs no migration.
///
/// A link without a route is a **web link**: its `destinations.fallback` (required then) is a page on an allowed
/// host, the team's shop or help centre, and every platform is sent there (or to its own destination), counted,
/// QR-coded and previewed like any link; it never offers the app.
package struct SmartLink: Sendable, Codable, Equatable {
    package var code: String
    /// The bundle ID of the app the link opens, when the configuration has several; nil: the primary app.
    package var app: String?
    /// The app's destination, as a path with its query (`/post/10?tag=a`), checked against its route manifest;
    /// nil for a web link.
    package var route: String?
    package var destinations = Destinations()
    package var preview = Preview()
    /// Whether the query of a click (utm_* and the rest) is added to the destination.
    package var passQuery = true
    /// When the link stops opening its destinations (milliseconds since 1970), and where it goes then.
    package var expiresAt: Int64?
    package var expiredURL: String?
    /// Tried in order before the platform destinations, the first match wins (``LinkRule``); nil: none. A link
    /// with rules may have neither route nor fallback: when no rule matches, it has ended (past every rule's
    /// window) or has nothing for that visitor.
    package var rules: [LinkRule]?
    /// The campaign token App Store Connect's App Analytics attributes the link's installs to (`ct` of every App
    /// Store address the link gives); nil: the link's code.
    package var campaign: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case code, app, route, destinations, preview, passQuery, expiresAt, expiredURL, rules, campaign
    }

    /// Set (to `true`) in a decoder's `userInfo` to read a stored document without refusing fields this version
    /// does not know (a document a newer version wrote); what a client sends is read strictly.
    static let lenient = CodingUserInfoKey(rawValue: "deeplinks.link.lenient")!

    /// Only `code` is required (and a route or a fallback: ``SmartLinkValidator``); the rest has defaults. A field
    /// the document does not have is refused with its path (`'rule'`, `'destinations.iphone'`), as a rule's are:
    /// a misspelt field must not be dropped in silence. `url` (what the API writes beside a link) is read and
    /// ignored, so a link read can be sent back.
    package init(from decoder: any Decoder) throws {
        if decoder.userInfo[Self.lenient] as? Bool != true {
            let fields = try StrictKeys.container(decoder, allowing: CodingKeys.allCases.map(\.rawValue) + ["url"])
            // The objects inside, by their keys too: `destinations.iphone` is refused with its path.
            for (key, known) in [
                ("destinations", Destinations.CodingKeys.allCases.map(\.rawValue)),
                ("preview", Preview.CodingKeys.allCases.map(\.rawValue)),
            ] {
                let field = StrictKeys(stringValue: key)
                guard fields.contains(field), try !fields.decodeNil(forKey: field) else { continue }
                _ = try StrictKeys.container(try fields.superDecoder(forKey: field), allowing: known)
            }
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decode(String.self, forKey: .code)
        app = try container.decodeIfPresent(String.self, forKey: .app)
        route = try container.decodeIfPresent(String.self, forKey: .route)
        destinations = try container.decodeIfPresent(Destinations.self, forKey: .destinations) ?? Destinations()
        preview = try container.decodeIfPresent(Preview.self, forKey: .preview) ?? Preview()
        passQuery = try container.decodeIfPresent(Bool.self, forKey: .passQuery) ?? true
        expiresAt = try container.decodeIfPresent(Double.self, forKey: .expiresAt).map { value in
            guard let whole = Int64(exactly: value) else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: container.codingPath + [CodingKeys.expiresAt],
                        debugDescription: "a whole number of milliseconds since 1970, not \(value)"
                    )
                )
            }
            return whole
        }
        expiredURL = try container.decodeIfPresent(String.self, forKey: .expiredURL)
        rules = try container.decodeIfPresent([LinkRule].self, forKey: .rules).flatMap { $0.isEmpty ? nil : $0 }
        campaign = try container.decodeIfPresent(String.self, forKey: .campaign)
    }

    package init(code: String, route: String?) {
        self.code = code
        self.route = route
    }

    package struct Destinations: Sendable, Codable, Equatable {
        package var ios: String?
        package var ipad: String?
        package var android: String?
        package var desktop: String?
        package var fallback: String?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case ios, ipad, android, desktop, fallback
        }
    }

    package struct Preview: Sendable, Codable, Equatable {
        package var title: String?
        package var description: String?
        package var image: String?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case title, description, image
        }
    }
}
