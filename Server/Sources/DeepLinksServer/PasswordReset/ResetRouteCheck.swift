import AppSiteAssociation

extension AppConfiguration {
    /// Where the association file the server generates for this configuration would not let iOS open the app
    /// for the reset link, on each of the app's domains: one line per domain, empty when all open it.
    func resetRouteProblems() -> [String] {
        guard let reset = passwordReset else { return [] }
        let files: AssociationFiles
        let policy: LinkPolicy
        do {
            files = try AssociationFiles(app: self)
            policy = try LinkPolicy(settings: links, app: self, association: files)
        } catch {
            return ["passwordReset: \(error)"]
        }
        return domains.compactMap { domain in
            let url = "https://\(domain)\(reset.path)"
            let decision = policy.opens(self, url)
            guard decision.verdict != .match else { return nil }
            return
                "passwordReset.route: the association file does not claim \(url) for the app (\(decision.trace.last ?? decision.verdict.rawValue))"
        }
    }
}
