/// A database that cannot be opened, reached, read or migrated, or that answered what this build cannot use.
///
/// The description is one line for a person, with the database URL redacted; ``code`` says which case it is.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// The database cannot be opened or reached (its folder, its address, its credentials).
        case unreachable
        /// A statement failed on a database that was reached.
        case queryFailed
        /// A statement succeeded but its answer is not what the schema promises (a missing row or column).
        case unexpectedAnswer
        /// A migration failed; the schema is as the previous migration left it.
        case migrationFailed
        /// The schema is newer than this build knows.
        case newerSchema
    }

    public let code: Code
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package static func unreachable(_ url: DatabaseURL, reason: String) -> Self {
        .init(.unreachable, "cannot open the database at \(url.redacted): \(reason)")
    }

    package static func queryFailed(_ url: DatabaseURL, reason: String) -> Self {
        .init(.queryFailed, "a statement failed on the database at \(url.redacted): \(reason)")
    }

    package static func unexpectedAnswer(_ what: String) -> Self {
        .init(.unexpectedAnswer, "the database answered unexpectedly: \(what)")
    }

    package static func migrationFailed(version: Int, name: String, reason: String) -> Self {
        .init(.migrationFailed, "migration \(version) (\(name)) failed: \(reason)")
    }

    package static func newerSchema(applied: Int, known: Int) -> Self {
        .init(
            .newerSchema,
            "the database schema is at version \(applied), newer than this build knows (\(known)): upgrade the server"
        )
    }

    public var description: String { message }
}
