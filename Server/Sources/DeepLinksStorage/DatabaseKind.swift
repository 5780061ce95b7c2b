import Foundation

public enum DatabaseKind: String, Sendable, Codable {
    case sqlite
    case postgresql
}
