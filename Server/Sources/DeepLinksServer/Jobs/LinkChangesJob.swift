/// Reads the change log every server writes with each link edit (`link_changes`) and drops the changed codes from
/// this server's link cache (``LinkStore/syncChanges()``): another replica's edit is seen within a second.
struct LinkChangesJob: BackgroundJob {
    let links: LinkStore
    var name: String { "link changes" }

    func run() async throws { try await links.syncChanges() }
}
