import HTTPTypes
import Hummingbird
import NIOCore

/// The pages' scripts and style sheets, files under `Web/Assets/` compiled into the binary (`Package.swift`'s
/// `embedInCode`), served at `/assets/NAME` whether the reset journey is on or not.
enum WebAssets {
    static let files: [(path: String, type: String, bytes: [UInt8])] = [
        ("/assets/reset-password.js", "text/javascript; charset=utf-8", PackageResources.reset_password_js),
        ("/assets/deferred.js", "text/javascript; charset=utf-8", PackageResources.deferred_js),
        ("/assets/platform.js", "text/javascript; charset=utf-8", PackageResources.platform_js),
        ("/assets/site.css", "text/css; charset=utf-8", PackageResources.site_css),
        ("/assets/console.css", "text/css; charset=utf-8", PackageResources.console_css),
    ]

    static func register<Context: RequestContext>(on router: Router<Context>) {
        for method in [HTTPRequest.Method.get, .head] {
            for file in files {
                let buffer = ByteBuffer(bytes: file.bytes)
                router.on(RouterPath(file.path), method: method) { _, _ -> Response in
                    var headers = WebSecurityHeaders.scripted.fields
                    headers[.contentType] = file.type
                    headers[.cacheControl] = "public, max-age=300"
                    headers[.contentLength] = String(buffer.readableBytes)
                    return Response(
                        status: .ok,
                        headers: headers,
                        body: method == .head ? ResponseBody() : ResponseBody(byteBuffer: buffer)
                    )
                }
            }
        }
    }
}
