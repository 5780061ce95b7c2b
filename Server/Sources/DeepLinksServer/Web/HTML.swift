/// Markup, as every page and mail of the server is built: a `String` interpolated into it is escaped (for an element
/// or a quoted attribute); an `HTML` value goes in as it is. So a page cannot forget to escape: text becomes markup
/// only through an interpolation, and the one way to take a `String` as markup unescaped is ``init(trusted:)``, for
/// markup this server made itself (an SVG it drew, a script's file).
struct HTML: Sendable, Equatable, ExpressibleByStringInterpolation, CustomStringConvertible {
    private(set) var markup: String

    /// Markup this server wrote itself, taken as it is.
    init(trusted markup: String) {
        self.markup = markup
    }

    init(stringLiteral literal: String) {
        markup = literal
    }

    init(stringInterpolation: StringInterpolation) {
        markup = stringInterpolation.markup
    }

    var description: String { markup }

    static let empty: HTML = ""

    struct StringInterpolation: StringInterpolationProtocol {
        var markup = ""

        init(literalCapacity: Int, interpolationCount: Int) {
            markup.reserveCapacity(literalCapacity + 16 * interpolationCount)
        }

        mutating func appendLiteral(_ literal: String) { markup += literal }

        /// Text: escaped. Disfavored, so that a literal interpolated (`\(shown ? "<p>...</p>" : "")`) is markup, and
        /// only a `String` value is text.
        @_disfavoredOverload
        mutating func appendInterpolation(_ text: String) { markup += HTML.escape(text) }

        @_disfavoredOverload
        mutating func appendInterpolation(_ text: Substring) { markup += HTML.escape(String(text)) }

        /// Markup: as it is.
        mutating func appendInterpolation(_ html: HTML) { markup += html.markup }

        /// Pieces of markup, one after the other.
        mutating func appendInterpolation(_ pieces: [HTML]) { for piece in pieces { markup += piece.markup } }

        mutating func appendInterpolation(_ number: some BinaryInteger) { markup += String(number) }
    }

    /// Texts, each escaped, a line break between them.
    static func lines(_ texts: [String]) -> HTML {
        texts.map { "\($0)" as HTML }.joined(separator: "<br>")
    }

    static func + (lhs: HTML, rhs: HTML) -> HTML { HTML(trusted: lhs.markup + rhs.markup) }

    static func += (lhs: inout HTML, rhs: HTML) { lhs.markup += rhs.markup }

    /// Escapes text for an HTML element or a quoted attribute.
    private static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}

extension Sequence where Element == HTML {
    /// The pieces one after the other, `separator` between them.
    func joined(separator: HTML = .empty) -> HTML {
        var result = HTML.empty
        for (index, piece) in enumerated() {
            if index > 0 { result += separator }
            result += piece
        }
        return result
    }
}
