/// A database that cannot be opened, reached or migrated.
///
/// The description is one line for a person, with the database URL redacted.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    private enum Code: Sendable {
        case unreachable
        case migrationFailed
        case newerSchema
    }

    private let code: Code
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    static func unreachable(_ url: DatabaseURL, reason: String) -> Self {
        .init(.unreachable, "cannot open the database at \(url.redacted): \(reason)")
    }

    static func migrationFailed(version: Int, name: String, reason: String) -> Self {
        .init(.migrationFailed, "migration \(version) (\(name)) failed: \(reason)")
    }

    static func newerSchema(applied: Int, known: Int) -> Self {
        .init(
            .newerSchema,
            "the database schema is at version \(applied), newer than this build knows (\(known)): upgrade the server"
        )
    }

    public var description: String { message }
}
