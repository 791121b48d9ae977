import Foundation
import GRDB
import ShopCredentialFile
import ShopIdentity
import ShopModels
import ShopPorts
import ShopSSH
import ShopSandbox
import StorageSQLite
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import SystemPackage
import Testing

@Suite("Credential file")
struct FileCredentialRepositoryTests {
    let directory = TemporaryDirectory.make()
    var path: String { directory.appendingPathComponent("storefront/credentials").path }

    @Test func writesAPrivateFileAtomicallyAndReadsItBack() throws {
        let credentials = FileCredentialRepository(path: FilePath(path))
        try credentials.set("secret-1", forKey: "a")
        try credentials.set("secret-2", forKey: "b")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let parent = try FileManager.default.attributesOfItem(atPath: (path as NSString).deletingLastPathComponent)
        #expect((parent[.posixPermissions] as? Int) == 0o700)
        #expect(try FileCredentialRepository(path: FilePath(path)).string(forKey: "a") == "secret-1")
        try credentials.removeValue(forKey: "a")
        #expect(try credentials.string(forKey: "a") == nil)
        #expect(try credentials.string(forKey: "b") == "secret-2")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent)
        #expect(leftovers == ["credentials"], "no temporary file is left behind")
    }

    /// Read or write access for group or others: 0620, 0602 and 0610 are refused as 0644 is.
    @Test(arguments: [0o644, 0o640, 0o604, 0o620, 0o602, 0o610])
    func refusesAFileOthersCanReadOrWrite(mode: Int) throws {
        let credentials = FileCredentialRepository(path: FilePath(path))
        try credentials.set("secret", forKey: "a")
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        #expect(throws: CredentialFileError.permissionsTooOpen(path: FilePath(path), mode: mode_t(mode))) { try credentials.string(forKey: "a") }
        let message = "\(CredentialFileError.permissionsTooOpen(path: FilePath(path), mode: mode_t(mode)))"
        #expect(message.contains("are too open") && message.contains("chmod 600"))
        #expect(!message.contains("secret"))
        #expect(throws: CredentialFileError.self) { try credentials.set("other", forKey: "b") }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("secret"), "a refused file is never overwritten")
    }

    @Test func refusesASymbolicLinkAndLeavesItsTargetAlone() throws {
        let target = path + "-real"
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: target, contents: Data(#"{"a":"secret"}"#.utf8), attributes: [.posixPermissions: 0o600])
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        let credentials = FileCredentialRepository(path: FilePath(path))
        #expect(throws: CredentialFileError.self) { try credentials.string(forKey: "a") }
        #expect(throws: CredentialFileError.self) { try credentials.set("other", forKey: "b") }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == #"{"a":"secret"}"#)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: path) == target, "the link is not replaced")
    }

    @Test func aDamagedFileIsNamedAndKept() throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: path, contents: Data("not json".utf8), attributes: [.posixPermissions: 0o600])
        let credentials = FileCredentialRepository(path: FilePath(path))
        #expect(throws: CredentialFileError.damaged(path: FilePath(path))) { try credentials.string(forKey: "a") }
        #expect(throws: CredentialFileError.damaged(path: FilePath(path))) { try credentials.set("x", forKey: "a") }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "not json")
    }

    @Test func authManagerKeepsTheSessionInTheRealFile() async throws {
        let auth = AuthManager(credentials: FileCredentialRepository(path: FilePath(path)))
        #expect(try await auth.storedSession() == nil)
        try await auth.save(Fixtures.tokens, userID: "sbx_1")
        let reopened = AuthManager(credentials: FileCredentialRepository(path: FilePath(path)))
        #expect(try await reopened.storedSession() == AuthManager.StoredSignIn(userID: "sbx_1", tokens: Fixtures.tokens))
        try await reopened.clear()
        #expect(try await auth.storedSession() == nil)
        #expect(try await auth.accessToken() == nil)
        #expect(try await auth.refreshToken() == nil)
    }
}
