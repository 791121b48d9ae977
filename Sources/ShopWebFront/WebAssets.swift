import CWebAssets
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// One of the page's files, compiled in from assets/web/ (CWebAssets): its bytes, gzipped once, and the name it is
/// served under, which carries a hash of its bytes so a browser may keep it for a year.
struct WebAsset: Sendable {
    /// The file's name in assets/web/: `xterm.js`.
    let name: String
    let bytes: [UInt8]
    /// The same in gzip, where that is smaller.
    let gzipped: [UInt8]?
    let type: String
    /// The first 12 hexadecimal digits of the bytes' FNV-1a hash: `xterm.0123456789ab.js`.
    let version: String

    /// The name the page asks for it by: its version between its stem and its extension.
    var versionedName: String {
        guard let dot = name.lastIndex(of: ".") else { return name + "." + version }
        return name[..<dot] + "." + version + name[dot...]
    }

    /// The files, by name; read and compressed once, when the first page or file is asked for.
    static let all: [String: WebAsset] = {
        var count = 0
        guard let table = sf_web_assets(&count) else { return [:] }
        var files: [String: WebAsset] = [:]
        for index in 0..<count {
            let entry = table[index]
            let name = String(cString: entry.name)
            let bytes = Array(UnsafeRawBufferPointer(start: entry.bytes, count: entry.size))
            files[name] = WebAsset(name: name, bytes: bytes, gzipped: gzip(bytes), type: type(of: name), version: version(of: bytes))
        }
        return files
    }()

    /// The file's text, for a page that writes it in rather than naming it (the bytes its hash is of).
    static func text(of name: String) -> String { String(decoding: all[name]?.bytes ?? [], as: UTF8.self) }

    /// The policy's sources that allow `names` written into a page: each one's SHA-256, `'sha256-BASE64'`.
    static func inlineSources(_ names: [String]) -> String {
        names.map { inlineSource(all[$0]?.bytes ?? []) }.joined(separator: " ")
    }

    /// The policy's source that allows an inline script or style of exactly `text`.
    static func inlineSource(_ text: some Sequence<UInt8>) -> String {
        "'sha256-" + Data(SHA256.hash(data: Array(text))).base64EncodedString() + "'"
    }

    static func inlineSource(_ text: String) -> String { inlineSource(text.utf8) }

    /// The address a page names `name` by (relative, so a proxy may mount the shop under a path).
    static func address(_ name: String) -> String { "assets/" + (all[name]?.versionedName ?? name) }

    /// What a request for `assets/REQUESTED` is answered with: the file, and whether the name asked for is its
    /// current version's (kept a year), an unversioned one (an hour), or another version's (not kept: a page from an
    /// older or newer build of the shop, as during a rolling upgrade, gets today's file).
    static func find(_ requested: String) -> (asset: WebAsset, cache: String)? {
        if let asset = all[requested] { return (asset, "public, max-age=3600") }
        let parts = requested.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3 else { return nil }
        let version = String(parts[parts.count - 2])
        let name = (parts.dropLast(2) + [parts[parts.count - 1]]).joined(separator: ".")
        guard let asset = all[name], version.utf8.count == 12, version.utf8.allSatisfy({ Self.hexDigits.contains($0) }) else { return nil }
        return (asset, version == asset.version ? "public, max-age=31536000, immutable" : "no-store")
    }

    /// Whether an `Accept-Encoding` header takes gzip: named (or `*`) without `q=0`.
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        return header.split(separator: ",").contains { part in
            let fields = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let coding = fields.first, coding == "gzip" || coding == "*" else { return false }
            let weight = fields.dropFirst().first { $0.hasPrefix("q=") }.map { Double($0.dropFirst(2)) ?? 0 } ?? 1
            return weight > 0
        }
    }

    private static let hexDigits = Set("0123456789abcdef".utf8)

    private static func type(of name: String) -> String {
        name.hasSuffix(".js")
            ? "text/javascript; charset=utf-8" : name.hasSuffix(".css") ? "text/css; charset=utf-8" : "text/plain; charset=utf-8"
    }

    private static func version(of bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let hex = String(hash, radix: 16)
        return String((String(repeating: "0", count: 16 - hex.count) + hex).prefix(12))
    }

    /// `bytes` in gzip; nil where zlib fails or, with `onlySmaller`, where that is no smaller.
    static func gzip(_ bytes: [UInt8], onlySmaller: Bool = true) -> [UInt8]? {
        var out: UnsafeMutablePointer<UInt8>?
        var count = 0
        guard bytes.withUnsafeBufferPointer({ sf_gzip($0.baseAddress, $0.count, &out, &count) }) == 0, let out else { return nil }
        defer { free(out) }
        return count < bytes.count || !onlySmaller ? Array(UnsafeBufferPointer(start: out, count: count)) : nil
    }
}

extension WebFront {
    /// `GET /assets/NAME`: the page's files, in gzip to a browser that takes it, each kept a year under its versioned
    /// name.
    static func addAssets(to router: Router<WebRequestContext>) {
        router.get("/assets/:name") { request, context in
            guard let name = context.parameters.get("name"), let found = WebAsset.find(name) else {
                return Self.response(.notFound, text: "no such file")
            }
            let gzipped = WebAsset.acceptsGzip(request.headers[.acceptEncoding]) ? found.asset.gzipped : nil
            var response = Self.response(.ok, type: found.asset.type, body: ByteBuffer(bytes: gzipped ?? found.asset.bytes), cache: found.cache)
            response.headers[.vary] = "Accept-Encoding"
            if gzipped != nil { response.headers[.contentEncoding] = "gzip" }
            return response
        }
    }
}
