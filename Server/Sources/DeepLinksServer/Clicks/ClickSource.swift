/// Where a counted click came from: the short link itself, or its QR code (the link with `?qr=1`, as
/// `GET /v1/links/{code}/qr` draws it).
enum ClickSource: String, Sendable, Hashable {
    case link, qr
}
