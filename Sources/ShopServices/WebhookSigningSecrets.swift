import Foundation
import ShopBootstrap
import ShopCredentialFile
import SystemPackage

/// The webhook endpoint's signing secrets (whsec_…), one per line or comma while a secret is rotated.
public enum WebhookSigningSecrets {
    public static let variable = "STOREFRONT_STRIPE_WEBHOOK_SECRET"

    /// The secrets from the environment's `value` or from `file` (mode 0600, the user's), exactly one of them.
    public static func read(value: String?, file: FilePath?) throws(ServiceStartFailure) -> [String] {
        let text: String
        switch (value.flatMap { $0.isEmpty ? nil : $0 }, file) {
        case (nil, nil):
            throw ServiceStartFailure(
                .configuration,
                "webhooks need the endpoint's signing secret from Stripe: set \(variable), or name a file with --webhook-secret-file (docs/webhooks.md)"
            )
        case (.some, .some):
            throw ServiceStartFailure(.configuration, "both \(variable) and --webhook-secret-file are set; keep one")
        case (let value?, nil):
            text = value
        case (nil, let path?):
            do {
                text = String(decoding: try ProtectedFile.read(path), as: UTF8.self)
            } catch {
                throw ServiceStartFailure(
                    .configuration, "the webhook secret file \(path) cannot be used: \(error) (it must be yours, a regular file, mode 0600)")
            }
        }
        let secrets = text.split(whereSeparator: { $0 == "," || $0.isNewline }).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !secrets.isEmpty else { throw ServiceStartFailure(.configuration, "the webhook signing secret is empty") }
        for secret in secrets where !secret.hasPrefix("whsec_") || secret.count < 16 {
            throw ServiceStartFailure(
                .configuration,
                "\"\(secret.prefix(10))…\" is not a Stripe webhook signing secret (they start whsec_); the dashboard shows it under the endpoint")
        }
        return secrets
    }
}
