/// Why `Operators` refused a change: the console shows it, `deeplinks operators` prints it.
public enum OperatorError: Error, CustomStringConvertible, Equatable {
    case invalidEmail(String)
    case weakPassword([String])
    case taken
    case noSuchOperator
    case noSuchKey
    case invalidName
    case lastAdmin

    public var description: String {
        switch self {
        case .invalidEmail(let reason): "not an email address (\(reason))"
        case .weakPassword(let reasons): "the password is too weak: \(reasons.joined(separator: ", "))"
        case .taken: "an operator with this address exists"
        case .noSuchOperator: "no operator has this address"
        case .noSuchKey: "no API key has this id"
        case .invalidName: "a key's name is 1 to 80 printable characters"
        case .lastAdmin: "this is the last admin: make another operator an admin first"
        }
    }
}
