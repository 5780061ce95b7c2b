/// The one HTML document every page of the server is written into (console, smart-link pages, the reset page).
enum PageShell {
    /// - Parameters:
    ///   - head: extra lines of `<head>` (meta tags, the page's script), already escaped.
    ///   - body: the content of `<body>`, already escaped.
    static func document(title: String, stylesheet: String, head: String = "", body: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        \(head)
        <title>\(HTML.escape(title))</title>
        <link rel="stylesheet" href="\(stylesheet)">
        </head>
        <body>
        \(body)
        </body>
        </html>
        """
    }
}
