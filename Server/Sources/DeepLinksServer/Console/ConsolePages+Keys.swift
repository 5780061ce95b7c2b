import DeepLinks
import Foundation
import Hummingbird

/// API keys, operators and the recent changes.
extension ConsolePages {
    static func keys(
        _ keys: [Operators.APIKey],
        operators: [Operators.Operator],
        audit: [Operators.AuditEvent],
        created: (name: String, secret: String)?,
        error: String?,
        viewer: Viewer
    ) -> HTML {
        let rows = keys.map { key -> HTML in
            var state: HTML =
                key.revokedAt.map { "revoked \(formatted($0))" }
                    ?? """
                    <form method="post" action="/console/keys/\(key.id)/revoke" class="inline">\(csrfField(viewer))<button class="secondary" type="submit" aria-label="Revoke \(key.name)">Revoke</button></form>
                    """
            // Revoked or lowered because its operator was removed or lowered: say so.
            if let note = key.note { state += #" <span class="help">\#(note)</span>"# }
            return """
                <tr><td>\(key.name)</td><td>\(key.role.rawValue)</td><td><code>\(key.prefix)…</code></td><td>\(formatted(key.createdAt))\(key.createdBy.map { " by \($0)" } ?? "")</td><td>\(key.lastUsedAt.map { formatted($0) } ?? "never")</td><td>\(state)</td></tr>
                """
        }.joined(separator: "\n")
        let shown: HTML =
            created.map {
                #"<div class="notice" role="status" id="new-key"><p>The key <strong>\#($0.name)</strong>, shown only now: copy it to where it is used.</p><p><code id="secret">\#($0.secret)</code></p></div>"#
            } ?? ""
        let people = operators.map { person -> HTML in
            // No one removes themselves: the last admin cannot lock everyone out.
            let remove: HTML =
                person.id == viewer.signedIn.id
                ? "(you)"
                : """
                <form method="post" action="/console/operators/remove" class="inline">\(csrfField(viewer))<input type="hidden" name="email" value="\(person.email)"><button class="secondary" type="submit" aria-label="Remove \(person.email)">Remove</button></form>
                """
            let options: HTML = OperatorRole.allCases.map {
                "<option\($0 == person.role ? " selected" : "")>\($0.rawValue)</option>" as HTML
            }.joined()
            let role: HTML =
                person.id == viewer.signedIn.id
                ? "\(person.role.rawValue)"
                : """
                <form method="post" action="/console/operators/role" class="inline">\(csrfField(viewer))<input type="hidden" name="email" value="\(person.email)"><select name="role" aria-label="Role of \(person.email)">\(options)</select> <button class="secondary" type="submit">Set role</button></form>
                """
            return "<tr><td>\(person.email)</td><td>\(role)</td><td>\(remove)</td></tr>"
        }.joined()
        let roles: HTML = OperatorRole.allCases.map { "<option>\($0.rawValue)</option>" as HTML }.joined()
        let events = audit.map { event -> HTML in
            "<tr><td>\(formatted(event.at))</td><td>\(event.actor)</td><td>\(event.event)</td><td>\(event.detail)</td></tr>"
        }.joined()
        return page(
            title: "API keys and operators",
            viewer: viewer,
            body: """
                <h1>API keys and operators</h1>
                \(shown)
                \(error.map { #"<p class="error" role="alert">\#($0)</p>"# as HTML } ?? "")
                <p>Send a key as <code>Authorization: Bearer KEY</code>. A viewer's key reads links and counts; an editor's also changes links; an admin's also manages keys. The configuration's admin key (<code>DEEPLINKS_ADMIN_KEY</code>) is still accepted as an admin's.</p>
                <table id="keys"><thead><tr><th>Name</th><th>Role</th><th>Key</th><th>Created (UTC)</th><th>Last used (UTC)</th><th></th></tr></thead><tbody>\(rows)</tbody></table>
                <h2>New key</h2>
                <form method="post" action="/console/keys">\(csrfField(viewer))
                <label for="name">Name</label><input id="name" name="name" required maxlength="80">
                <label for="role">Role</label><select id="role" name="role">\(roles)</select>
                <p><button type="submit">Create key</button></p>
                </form>
                <h2>Operators</h2>
                <table id="operators"><thead><tr><th>Email</th><th>Role</th><th></th></tr></thead><tbody>\(people)</tbody></table>
                <h3>Add an operator</h3>
                <form method="post" action="/console/operators">\(csrfField(viewer))
                <label for="operator-email">Email</label><input id="operator-email" name="email" type="email" required>
                <label for="operator-role">Role</label><select id="operator-role" name="role">\(roles)</select>
                <label for="operator-password">First password (tell them to keep it secret)</label><input id="operator-password" name="password" type="password" autocomplete="new-password" required>
                <p><button type="submit">Add operator</button></p>
                </form>
                <p class="help">Also with <code>deeplinks operators create|list|role|remove|unlock</code>. A key belongs to the operator who made it: removing an operator ends their sessions and revokes their keys; lowering their role lowers their keys to it. The last admin cannot be removed or demoted.</p>
                <h2>Recent changes</h2>
                <table id="audit"><thead><tr><th>When (UTC)</th><th>Who</th><th>What</th><th></th></tr></thead><tbody>\(events)</tbody></table>
                """
        )
    }
}
