/// The one HTML document every page of the server is written into (console, smart-link pages, the reset page).
enum PageShell {
    /// - Parameters:
    ///   - head: extra lines of `<head>` (meta tags, the page's script).
    ///   - body: the content of `<body>`.
    static func document(title: String, stylesheet: String, head: HTML = .empty, body: HTML) -> HTML {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        \(head)
        <title>\(title)</title>
        <link rel="stylesheet" href="\(stylesheet)">
        </head>
        <body>
        \(body)
        </body>
        </html>
        """
    }
}
