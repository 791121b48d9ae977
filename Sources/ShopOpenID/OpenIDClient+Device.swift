import Foundation
import ShopPorts

/// A device authorization (RFC 8628): what the shopper opens elsewhere and the code they confirm there.
public struct DeviceAuthorization: Equatable, Sendable {
    public var deviceCode: String
    public var userCode: String
    public var verificationURI: String
    /// The address with the user code in it, when the provider gives one: nothing to type.
    public var verificationURIComplete: String?
    /// When the codes stop working.
    public var expiresAt: Date
    /// How long to wait between two asks at the token endpoint.
    public var interval: Duration
}

/// What the token endpoint says of a device authorization.
public enum DevicePoll: Equatable, Sendable {
    /// The shopper has not finished yet: ask again after the interval.
    case pending
    /// Ask less often: the interval grows by 5 seconds.
    case slowDown
    case idToken(String)
    /// The shopper said no at the provider.
    case denied
    case expired
}

extension OpenIDClient {
    /// Asks the provider's device authorization endpoint for a code to show; nil when discovery names none.
    public func startDeviceAuthorization() async throws(OpenIDError) -> DeviceAuthorization? {
        guard let endpoint = try await metadata().deviceAuthorizationEndpoint else { return nil }
        let fields = [("client_id", settings.clientID), ("scope", (["openid"] + settings.scopes).joined(separator: " "))]
        let answer: (status: Int, body: Data)
        let proof = try await clientAuthentication()
        do { answer = try await transport.postForm(endpoint, fields: fields + proof.fields, headers: proof.headers) } catch {
            throw .tokenEndpoint("\(error)")
        }
        let json = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any]
        // Google names the address `verification_url` (its own older draft), RFC 8628 `verification_uri`: either is taken.
        guard answer.status == 200, let json, let device = json["device_code"] as? String, let user = json["user_code"] as? String,
            let uri = (json["verification_uri"] ?? json["verification_url"]) as? String, device.utf8.count <= 1_024, user.utf8.count <= 64,
            Self.isWebAddress(uri)
        else { throw .tokenEndpoint("the device authorization answered \(answer.status) \(json?["error"] as? String ?? "without codes")") }
        // Numbers from the provider are bounded before any arithmetic.
        let lifetime = min(max((json["expires_in"] as? Int) ?? 600, 60), 1_800)
        let interval = min(max((json["interval"] as? Int) ?? 5, 1), 60)
        let complete = (json["verification_uri_complete"] as? String).flatMap { Self.isWebAddress($0) ? $0 : nil }
        return DeviceAuthorization(
            deviceCode: device, userCode: user, verificationURI: uri, verificationURIComplete: complete,
            expiresAt: dates.now().addingTimeInterval(TimeInterval(lifetime)), interval: .seconds(interval))
    }

    /// Asks the token endpoint once whether the shopper finished the device authorization.
    public func pollDeviceToken(_ authorization: DeviceAuthorization) async throws(OpenIDError) -> DevicePoll {
        let endpoint = try await metadata().tokenEndpoint
        let fields = [
            ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", authorization.deviceCode),
            ("client_id", settings.clientID),
        ]
        let answer: (status: Int, body: Data)
        let proof = try await clientAuthentication()
        do { answer = try await transport.postForm(endpoint, fields: fields + proof.fields, headers: proof.headers) } catch {
            throw .tokenEndpoint("\(error)")
        }
        let json = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any]
        if answer.status == 200, let token = json?["id_token"] as? String { return .idToken(token) }
        switch json?["error"] as? String {
        case "authorization_pending": return .pending
        case "slow_down": return .slowDown
        case "access_denied": return .denied
        case "expired_token": return .expired
        case let error: throw .tokenEndpoint("\(answer.status) \(error ?? "without an ID token")")
        }
    }

    /// An http(s) address of one short line, fit to show and to make a QR code of.
    static func isWebAddress(_ text: String) -> Bool {
        guard text.utf8.count <= 512, let url = URL(string: text), url.scheme == "https" || url.scheme == "http", url.host != nil else {
            return false
        }
        return !text.contains { $0.isWhitespace || $0.isNewline }
    }
}
