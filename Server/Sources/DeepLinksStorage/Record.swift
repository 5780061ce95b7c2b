import SQLKit

/// A row as a store returns it: its fields are its columns, declared once (in SQL in snake case: `createdAt` reads
/// `created_at`; a field whose name does not convert, `operatorID`, says its column in `CodingKeys`). Decoded whole by
/// ``SQLKit/SQLRow/record(_:)``, never column by column.
package protocol Record: Decodable, Sendable {}

extension SQLRow {
    /// The row as `type`.
    func record<R: Record>(_ type: R.Type = R.self) throws -> R {
        try decode(model: R.self, keyDecodingStrategy: .convertFromSnakeCase)
    }
}
