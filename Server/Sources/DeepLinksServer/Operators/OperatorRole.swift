/// What an operator or an API key may do. Each role includes the ones before it: a viewer reads links, their
/// counts and the association files; an editor also creates, edits, imports and deletes links; an admin also
/// manages API keys and issues reset links for the team's backend.
public enum OperatorRole: String, CaseIterable, Comparable, Sendable {
    case viewer, editor, admin

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// What the role adds, for errors and pages.
    var grants: String {
        switch self {
        case .viewer: "reading links, their clicks and the association files"
        case .editor: "creating, editing, importing and deleting links"
        case .admin: "managing API keys and issuing reset links"
        }
    }
}
