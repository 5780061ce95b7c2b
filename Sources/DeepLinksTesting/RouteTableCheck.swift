import DeepLinks

/// Checks an adopter can run in any test framework: each returns the failures, one sentence each, so an empty
/// array means the check passed (`#expect(RouteTableCheck.roundTripFailures(...).isEmpty)` or `XCTAssertEqual(..., [])`).
public enum RouteTableCheck {
    /// Prints each destination in every form its route accepts and parses the URL back; a destination that
    /// does not come back identical is a failure. Sensitive values are never part of a failure message.
    public static func roundTripFailures<Destination: Equatable>(
        _ table: RouteTable<Destination>,
        _ destinations: [Destination]
    ) -> [String] {
        var failures: [String] = []
        for (index, destination) in destinations.enumerated() {
            var printedAny = false
            var printErrors: [PrintError] = []
            for form in [LinkForm.universalLink(), .customScheme()] {
                let url: String
                do {
                    url = try table.url(for: destination, as: form)
                } catch {
                    printErrors.append(error)  // the route may not accept this form
                    continue
                }
                printedAny = true
                switch table.match(url) {
                case .success(let match) where match.destination == destination:
                    break
                case .success(let match):
                    failures.append(
                        "destination #\(index) printed as \(table.redact(url)) parses back to another destination, by route '\(match.routeName)' (its parse and print disagree, or it is shadowed)"
                    )
                case .failure(let rejection):
                    failures.append(
                        "destination #\(index) printed as \(table.redact(url)) but is refused: \(rejection)"
                    )
                }
            }
            if !printedAny {
                let reasons = printErrors.map(\.reason).joined(separator: "; ")
                failures.append("destination #\(index) cannot be printed in any form: \(reasons)")
            }
        }
        return failures
    }

    /// Matches each URL and compares the destination; returns a failure per URL that is refused or reaches
    /// another destination.
    public static func routingFailures<Destination: Equatable>(
        _ table: RouteTable<Destination>,
        _ expectations: [(url: String, destination: Destination)]
    ) -> [String] {
        expectations.compactMap { url, expected in
            switch table.match(url) {
            case .success(let match) where match.destination == expected: nil
            case .success(let match): "\(table.redact(url)) reaches \(match), not the expected destination"
            case .failure(let rejection): "\(table.redact(url)) is refused: \(rejection)"
            }
        }
    }
}
