#if canImport(UIKit) && !os(watchOS)
import DeepLinks
import UIKit

// Type-checked on Apple platforms only (this file is empty on Linux): the reporter's default transport.

extension LinkReporter {
    /// A reporter that sends its batches with `session` (`URLSession.shared` by default): a POST of JSON, the
    /// status as the server answered it. `URLSession.data(for:)` is iOS 15's, below the package's iOS 16.
    public static func urlSession(
        server: String,
        linkDomains: [String],
        session: URLSession = .shared
    ) -> LinkReporter {
        LinkReporter(server: server, linkDomains: linkDomains) { body, address in
            guard let url = URL(string: address) else { return 400 }
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            request.httpBody = Data(body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            let (_, response) = try await session.data(for: request)
            return (response as? HTTPURLResponse)?.statusCode ?? 0
        }
    }
}
#endif
