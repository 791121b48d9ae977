import AsyncHTTPClient
import Foundation
import NIOCore

/// How the shop talks to a provider: a GET of a JSON document, and a form POST to the token endpoint (with the
/// client's `Authorization` header, where it proves itself that way).
public protocol OpenIDTransport: Sendable {
    func get(_ url: String) async throws -> (status: Int, body: Data)
    func postForm(_ url: String, fields: [(String, String)], headers: [(String, String)]) async throws -> (status: Int, body: Data)
}

/// The transport over AsyncHTTPClient: 10 s for an answer, at most 1 MB of it.
public struct HTTPOpenIDTransport: OpenIDTransport {
    private let client: HTTPClient
    private let deadline: TimeAmount

    public init(client: HTTPClient = .shared, deadline: TimeAmount = .seconds(10)) {
        self.client = client
        self.deadline = deadline
    }

    public func get(_ url: String) async throws -> (status: Int, body: Data) {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        return try await send(request)
    }

    public func postForm(_ url: String, fields: [(String, String)], headers: [(String, String)]) async throws -> (status: Int, body: Data) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(fields)))
        return try await send(request)
    }

    private func send(_ request: HTTPClientRequest) async throws -> (status: Int, body: Data) {
        let response = try await client.execute(request, timeout: deadline)
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), Data(body.readableBytesView))
    }
}

/// `application/x-www-form-urlencoded`, and query strings, in one encoding.
enum FormEncoding {
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encode(_ fields: [(String, String)]) -> String {
        fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}
