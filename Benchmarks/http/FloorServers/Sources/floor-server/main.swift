// floor-server nio|hummingbird PORT HEADERS_FILE
//
// Answers every GET of `/bench` with `302 Found` and the header lines of HEADERS_FILE (`Name: value`, as curl
// printed the server's own answer; `Content-Length` is set to 0 here, and Hummingbird writes its own `Date`).
// - nio: NIO's HTTP/1 pipeline (`configureHTTPServerPipeline`) and one handler, on one event loop per core.
// - hummingbird: `Router` with one route and `Application`, nothing else (no middleware).
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOPosix

let arguments = CommandLine.arguments
guard arguments.count == 4, let port = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: floor-server nio|hummingbird PORT HEADERS_FILE\n".utf8))
    exit(64)
}
let headerLines = try String(contentsOfFile: arguments[3], encoding: .utf8)
let captured: [(name: String, value: String)] = headerLines.split(whereSeparator: \.isNewline).compactMap { line in
    guard let colon = line.firstIndex(of: ":") else { return nil }
    let name = String(line[..<colon])
    guard name.lowercased() != "content-length" else { return nil }
    return (name, line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
}

/// Writes the 302 for each request's end; closes the connection when the client asked.
final class RedirectHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let head: HTTPResponseHead
    private var keepAlive = true

    init(head: HTTPResponseHead) {
        self.head = head
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            keepAlive = request.isKeepAlive
        case .body:
            break
        case .end:
            var head = head
            if !keepAlive { head.headers.replaceOrAdd(name: "connection", value: "close") }
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            if keepAlive {
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            } else {
                let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
                context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
                    loopBound.value.close(promise: nil)
                }
            }
        }
    }
}

switch arguments[1] {
case "nio":
    var headers = HTTPHeaders(captured.map { ($0.name, $0.value) })
    headers.replaceOrAdd(name: "content-length", value: "0")
    let head = HTTPResponseHead(version: .http1_1, status: .found, headers: headers)
    let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .serverChannelOption(.backlog, value: 256)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelOption(.maxMessagesPerRead, value: 16)
        .childChannelInitializer { channel in
            channel.pipeline.configureHTTPServerPipeline().flatMap {
                channel.pipeline.addHandler(RedirectHandler(head: head))
            }
        }
        .bind(host: "127.0.0.1", port: port)
        .get()
    try await channel.closeFuture.get()
case "hummingbird":
    var fields = HTTPFields()
    for (name, value) in captured where name.lowercased() != "date" {
        guard let field = HTTPField.Name(name) else { continue }
        fields.append(HTTPField(name: field, value: value))
    }
    let router = Router()
    router.get("bench") { [fields] _, _ in Response(status: .found, headers: fields) }
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
    try await app.runService()
default:
    FileHandle.standardError.write(Data("unknown server '\(arguments[1])': nio or hummingbird\n".utf8))
    exit(64)
}
