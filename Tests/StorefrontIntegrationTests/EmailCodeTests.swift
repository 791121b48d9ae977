import Crypto
import Foundation
import ShopIdentity
import ShopPorts
import StoragePostgres
import StorageRows
import StorageSQLite
import StorefrontTesting
import Synchronization
import Testing

/// Codes by email on both databases: accepted once, for their email and purpose only, for 10 minutes; 5 wrong guesses
/// an hour and 20 a day per email, across its codes; limited per email and per client; kept only as keyed hashes.
@Suite("Codes sent by email", .ownThreads)
struct EmailCodeTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    let now = Date(timeIntervalSince1970: 1_795_339_800)
    let key = SymmetricKey(data: Data(repeating: 7, count: 32))

    /// Codes over a fresh database, handing out `codes` in turn; and the SQLite file, for looking into.
    func codes(_ kind: Kind, _ codes: [String]) async throws -> (EmailCodes, URL?) {
        let queue = Mutex(codes)
        let make: @Sendable () -> String = { queue.withLock { $0.isEmpty ? "000000" : $0.removeFirst() } }
        switch kind {
        case .sqlite:
            let directory = TemporaryDirectory.make()
            let database = try SQLiteDatabase.open(directory: directory)
            return (EmailCodes(store: SQLSignInCodes(database: database), key: key, makeCode: make), URL(fileURLWithPath: database.path))
        case .postgres:
            let fixture = try await PostgresFixture()
            return (EmailCodes(store: SQLSignInCodes(database: fixture.database), key: key, makeCode: make), nil)
        }
    }

    @Test(arguments: Kind.allCases)
    func aCodeIsAcceptedOnceForItsEmailAndPurposeOnly(kind: Kind) async throws {
        let (codes, file) = try await codes(kind, ["271828", "314159"])
        #expect(try await codes.request(email: " Ada@Example.com", purpose: .signIn, client: "ip:127.0.0.1", at: now) == "271828")
        #expect(try await codes.check(email: "bo@example.com", typed: "271828", purpose: .signIn, at: now) == .noCode, "another email's")
        #expect(try await codes.check(email: "ada@example.com", typed: "271828", purpose: .linkKey, at: now) == .noCode, "another purpose's")
        #expect(try await codes.check(email: "ada@example.com", typed: "271 828", purpose: .signIn, at: now.addingTimeInterval(30)) == .accepted)
        #expect(
            try await codes.check(email: "ADA@example.com", typed: "271828", purpose: .signIn, at: now.addingTimeInterval(31)) == .expired,
            "used once")
        #expect(try await codes.request(email: "ada@example.com", purpose: .signIn, client: "ip:127.0.0.1", at: now) == "314159")
        #expect(
            try await codes.check(email: "ada@example.com", typed: "314159", purpose: .signIn, at: now.addingTimeInterval(600)) == .expired,
            "10 minutes")
        if let file {
            // Only HMACs were written: no code is anywhere in the file or its log.
            for path in [file.path, file.path + "-wal"] {
                let bytes = (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
                #expect(bytes.range(of: Data("271828".utf8)) == nil && bytes.range(of: Data("314159".utf8)) == nil, "\(path)")
            }
        }
    }

    @Test(arguments: Kind.allCases)
    func theSixthTryIsRefusedEvenWithTheRightCode(kind: Kind) async throws {
        let (codes, _) = try await codes(kind, ["111111"])
        _ = try await codes.request(email: "ada@example.com", purpose: .signIn, client: "ssh:SHA256:a", at: now)
        var answers: [CodeCheck] = []
        for wrong in ["000001", "000002", "000003", "000004", "000005"] {
            answers.append(try await codes.check(email: "ada@example.com", typed: wrong, purpose: .signIn, at: now))
        }
        #expect(answers == [.wrong(triesLeft: 4), .wrong(triesLeft: 3), .wrong(triesLeft: 2), .wrong(triesLeft: 1), .wrong(triesLeft: 0)])
        #expect(try await codes.check(email: "ada@example.com", typed: "111111", purpose: .signIn, at: now) == .tooManyTries)
    }

    @Test(arguments: Kind.allCases)
    func aNewCodeDoesNotGiveAGuesserMoreTries(kind: Kind) async throws {
        let (codes, _) = try await codes(kind, ["111111", "222222", "333333", "444444", "555555", "666666", "777777"])
        let ada = "ada@example.com"
        _ = try await codes.request(email: ada, purpose: .signIn, client: "ip:6.6.6.6", at: now)
        for wrong in ["000001", "000002", "000003", "000004", "000005"] {
            _ = try await codes.check(email: ada, typed: wrong, purpose: .signIn, at: now)
        }
        // Asking again does not reset the count: the new code is refused too until the hour is over.
        _ = try await codes.request(email: ada, purpose: .signIn, client: "ip:6.6.6.6", at: now + 60)
        #expect(try await codes.check(email: ada, typed: "222222", purpose: .signIn, at: now + 61) == .tooManyTries)
        // An hour on, five more wrong guesses, and so on: twenty a day, then nothing until the first day's are a day old.
        var wrongAnswers = 0
        for hour in 1...4 {
            let at = now + Double(hour * 3_601)
            _ = try await codes.request(email: ada, purpose: .signIn, client: "ip:\(hour)", at: at)
            for guess in 0..<6 where try await codes.check(email: ada, typed: "90000\(guess)", purpose: .signIn, at: at + 1) != .tooManyTries {
                wrongAnswers += 1
            }
        }
        #expect(wrongAnswers == 15, "five in each of three hours, then the day's twenty are spent")
        let nextDay = now + 86_401
        let code = try #require(try await codes.request(email: ada, purpose: .signIn, client: "ip:9", at: nextDay))
        #expect(try await codes.check(email: ada, typed: code, purpose: .signIn, at: nextDay + 1) == .accepted)
    }

    @Test(arguments: Kind.allCases)
    func aStrangerAskingAgainLeavesTheCodeInFlight(kind: Kind) async throws {
        let (codes, _) = try await codes(kind, ["111111", "222222", "333333"])
        let ada = "ada@example.com"
        #expect(try await codes.request(email: ada, purpose: .signIn, client: "ssh:SHA256:ada", at: now) == "111111")
        #expect(try await codes.request(email: ada, purpose: .signIn, client: "ip:6.6.6.6", at: now + 10) == "222222")
        #expect(try await codes.request(email: ada, purpose: .signIn, client: "ip:6.6.6.6", at: now + 20) == "333333")
        #expect(try await codes.check(email: ada, typed: "111111", purpose: .signIn, at: now + 30) == .accepted, "Ada's code still works")
        // Once one is used, every code of that email and purpose is spent.
        #expect(try await codes.check(email: ada, typed: "333333", purpose: .signIn, at: now + 31) == .expired)
    }

    @Test(arguments: Kind.allCases)
    func anEmailAndAClientMayAskForSoManyCodesAnHour(kind: Kind) async throws {
        let (codes, _) = try await codes(kind, [])
        var filed: [Bool] = []
        for minute in 0..<6 {
            filed.append(
                try await codes.request(email: "ada@example.com", purpose: .signIn, client: "ip:\(minute)", at: now + Double(minute * 60)) != nil)
        }
        #expect(filed == [true, true, true, true, true, false], "five an hour for one email")
        #expect(try await codes.request(email: "ada@example.com", purpose: .signIn, client: "ip:9", at: now + 3_601) != nil, "an hour on, again")
        var byClient = 0
        for index in 0..<25 where try await codes.request(email: "user\(index)@example.com", purpose: .signIn, client: "ip:6.6.6.6", at: now) != nil {
            byClient += 1
        }
        #expect(byClient == 20, "twenty an hour for one client, whatever the emails")
        await #expect(throws: EmailCodeError.invalidEmail("Enter a valid email address, like name@example.com.")) {
            try await codes.request(email: "ada@", purpose: .signIn, client: "ip:1", at: now)
        }
    }
}
