import ShopSSH
import Testing

/// The OpenSSH front's pure parts: what sshd is told about an offered key, and who `$SSH_USER_AUTH` says signed in.
@Suite("OpenSSH front")
struct OpenSSHFrontUnitTests {
    // Made by ssh-keygen; their fingerprints as `ssh-keygen -lf` prints them.
    let ed25519 = "AAAAC3NzaC1lZDI1NTE5AAAAIIBr/pG6bM77qSef1X1rxgU2++5d2fXVnDo4kPsxXVCd"
    let ed25519Fingerprint = "SHA256:UjAgW996HvZ/lq23+s8U95IwXOfBl/iqYUaRJYJmUhc"
    let ecdsa =
        "AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBLHmUzJ/OyXmpLY37uDzpMdhGV9fjCRzxTnDGw+rrBPDAJ9tL4amBMT3sTUT+8Lr2u+RlJnQ32rZ8NN58WjYsf0="
    let ecdsaFingerprint = "SHA256:z+DcMsmgPDhf5CtMjI0lS1ajbdAFjSaGBcNnCcZaHcE"

    @Test func anyWellFormedKeyIsLetInRestrictedToATerminal() {
        #expect(OpenSSHFront.authorizedKeysLine(type: "ssh-ed25519", key: ed25519) == "restrict,pty ssh-ed25519 \(ed25519)")
        #expect(OpenSSHFront.authorizedKeysLine(type: "ecdsa-sha2-nistp256", key: ecdsa) == "restrict,pty ecdsa-sha2-nistp256 \(ecdsa)")
        #expect(OpenSSHFront.authorizedKeysLine(type: "ssh-rsa", key: ed25519) == nil, "the blob names another type")
        #expect(OpenSSHFront.authorizedKeysLine(type: "ssh-ed25519", key: "not base64!") == nil)
        #expect(OpenSSHFront.authorizedKeysLine(type: "ssh-dss", key: ed25519) == nil, "a type the shop does not take")
        #expect(OpenSSHFront.authorizedKeysLine(type: "ssh-ed25519", key: "AAAA") == nil, "too short to be a key")
    }

    @Test func theVerifiedKeyIsTheLastPublicKeyLineOfTheAuthInfo() {
        #expect(OpenSSHFront.verifiedKeyFingerprint(authInfo: "publickey ssh-ed25519 \(ed25519)\n") == ed25519Fingerprint)
        // Several methods (AuthenticationMethods publickey,publickey): the last key is the one that finished.
        #expect(
            OpenSSHFront.verifiedKeyFingerprint(authInfo: "publickey ssh-ed25519 \(ed25519)\npublickey ecdsa-sha2-nistp256 \(ecdsa)\n")
                == ecdsaFingerprint)
        #expect(OpenSSHFront.verifiedKeyFingerprint(authInfo: "password\n") == nil)
        #expect(OpenSSHFront.verifiedKeyFingerprint(authInfo: "keyboard-interactive\n") == nil)
        #expect(OpenSSHFront.verifiedKeyFingerprint(authInfo: "publickey ssh-rsa \(ed25519)\n") == nil, "a line whose blob disagrees with its type")
        #expect(OpenSSHFront.verifiedKeyFingerprint(authInfo: "") == nil)
    }

    @Test func theConfigBlockForcesTheShopAndForbidsEverythingElse() {
        let block = OpenSSHFront.configSnippet(
            user: "shop", keysCommand: "/usr/local/bin/storefront sshd-keys",
            sessionCommand: "/usr/local/bin/storefront sshd-session --data-dir /srv/shop")
        for line in [
            "Match User shop", "AuthorizedKeysCommand /usr/local/bin/storefront sshd-keys %t %k", "AuthorizedKeysCommandUser shop",
            "ExposeAuthInfo yes",
            "ForceCommand /usr/local/bin/storefront sshd-session --data-dir /srv/shop", "DisableForwarding yes", "PermitTTY yes",
            "AuthorizedKeysFile none",
            "X11Forwarding no", "AllowAgentForwarding no", "PermitUserRC no", "PasswordAuthentication no",
        ] {
            #expect(block.contains("\n    \(line)\n") || block.contains("\(line)\n"), "\(line)")
        }
    }
}
