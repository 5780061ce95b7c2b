import AppSiteAssociation
import DeepLinks
import Foundation
import Hummingbird

/// The association files and URLs checked against them, and the link doctor's page.
extension ConsolePages {
    struct Verdict {
        let app: AppConfiguration
        let decision: AASADecision
        let route: String?
        let parameters: [(String, String)]
        let routeProblem: String?
    }

    static func association(
        files: [(name: String, path: String, body: String, diagnostics: [AASADiagnostic])],
        url: String,
        verdicts: [Verdict],
        urlProblem: String?,
        viewer: Viewer
    ) -> HTML {
        let sections = files.map { file -> HTML in
            let diagnostics: HTML =
                file.diagnostics.isEmpty
                ? "<p class=\"ok\">The validator finds no problem.</p>"
                : "<ul class=\"diagnostics\">\(file.diagnostics.map { "<li>\("\($0)")</li>" as HTML })</ul>"
            return """
                <section><h2>\(file.name)</h2>
                <p>Served at <a href="\(file.path)"><code>\(file.path)</code></a>.</p>
                \(diagnostics)
                <pre>\(file.body)</pre></section>
                """
        }.joined(separator: "\n")
        var answer = HTML.empty
        if let urlProblem {
            answer = #"<p class="error" role="alert" id="verdict">\#(urlProblem)</p>"#
        } else if !verdicts.isEmpty {
            answer = verdicts.map { verdict -> HTML in
                let opens = verdict.decision.verdict == .match
                let route: HTML =
                    verdict.route.map { route -> HTML in
                        let parameters: HTML = verdict.parameters.map {
                            "<li><code>\($0.0)</code> = <code>\($0.1)</code></li>" as HTML
                        }.joined()
                        return "<p>Route <code>\(route)</code></p>"
                            + (verdict.parameters.isEmpty ? "" : "<ul class=\"parameters\">\(parameters)</ul>")
                    } ?? verdict.routeProblem.map { "<p>No route of the app's manifest: \($0)</p>" as HTML } ?? ""
                return """
                    <section class="verdict" id="verdict"><h3>\(verdict.app.displayName) (<code>\(verdict.app.appID)</code>)</h3>
                    <p class="\(opens ? "ok" : "error")"><strong>\(opens ? "Opens the app" : "Does not open the app")</strong> (\(verdict.decision.verdict.rawValue))</p>
                    <ol class="trace">\(verdict.decision.trace.map { "<li>\($0)</li>" as HTML })</ol>
                    \(route)</section>
                    """
            }.joined(separator: "\n")
        }
        return page(
            title: "Association",
            viewer: viewer,
            body: """
                <h1>Association files</h1>
                <form method="get" action="/console/association" role="search">
                <label for="url">Does this URL open the app?</label>
                <input id="url" name="url" type="url" value="\(url)" placeholder="https://example.com/post/10">
                <button type="submit">Check</button>
                <p class="help">The verdict is the one iOS reaches with the file served here (the matcher follows Apple's rules); devices read Apple's CDN copy, which <code>deeplinks doctor URL</code> compares with it.</p>
                </form>
                \(answer)
                \(sections)
                """
        )
    }

    // MARK: Doctor

    static func doctor(
        url: String,
        referrer: String,
        userAgent: String,
        report: LinkDoctor.Report?,
        problem: String? = nil,
        viewer: Viewer
    ) -> HTML {
        var answer: HTML = problem.map { #"<p class="error" role="alert">\#($0)</p>"# } ?? ""
        if let report {
            let findings: HTML = report.findings.map {
                "<li><code>\($0.code ?? $0.severity.rawValue)</code>: \($0.message)</li>" as HTML
            }.joined()
            answer = """
                <section id="diagnosis"><h2>\(report.url)</h2>
                <p class="\(report.opensApp ? "ok" : "error")"><strong>\(report.opensApp ? "Opens the app" : "Opens Safari, because:")</strong></p>
                \(report.findings.isEmpty ? "" : "<ul class=\"findings\">\(findings)</ul>")
                \(report.notes.isEmpty ? "" : "<ul class=\"notes\">\(report.notes.map { "<li>\($0)</li>" as HTML })</ul>")
                \(report.trace.isEmpty ? "" : "<h3>The matcher, on the copy devices read</h3><ol class=\"trace\">\(report.trace.map { "<li>\($0)</li>" as HTML })</ol>")
                \(report.route.map { "<p>Route: <code>\($0)</code></p>" } ?? "")
                </section>
                """
        }
        return page(
            title: "Why didn't it open?",
            viewer: viewer,
            body: """
                <h1>Why didn't it open the app?</h1>
                <p>Checks a link the way iOS decides it, from what is served now: a mail scanner's rewrite, the domain's association file as iOS fetches it and Apple's CDN copy (what devices read), the matcher on that copy, the app's route, and where the tap happened. The same as <code>deeplinks doctor URL</code>.</p>
                <form method="get" action="/console/doctor">
                <label for="url">The link, as the user got it</label>
                <input id="url" name="url" type="url" required value="\(url)">
                <label for="referrer">The page it was tapped on (optional)</label>
                <input id="referrer" name="referrer" type="url" value="\(referrer)">
                <label for="userAgent">The browser's user agent (optional)</label>
                <input id="userAgent" name="userAgent" value="\(userAgent)">
                <p><button type="submit">Diagnose</button></p>
                </form>
                \(answer)
                """
        )
    }
}
