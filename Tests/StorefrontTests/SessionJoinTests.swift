import Foundation
import PseudoTerminal
import Testing

@testable import ShopSSH

#if canImport(Glibc)
    import Glibc
#endif

/// The join socket's messages, both ways, and what the server believes of a join.
@Suite("Session join")
struct SessionJoinTests {
    func pair() throws -> (Int32, Int32) {
        var ends: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &ends) == 0)
        return (ends[0], ends[1])
    }

    @Test func aJoinCarriesItsEnvironmentAndTheTerminal() throws {
        let (joiner, server) = try pair()
        defer {
            close(joiner)
            close(server)
        }
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        let environment = ["TERM": "xterm-256color", "SSH_CONNECTION": "127.0.0.1 5 127.0.0.1 22"]
        try SessionJoin.send(.join(environment: environment, terminal: ends[1]), on: joiner)
        guard case .message(.join(let received, let terminal)) = SessionJoin.receiveRequest(on: server) else {
            Issue.record("no join came")
            return
        }
        defer { close(terminal) }
        #expect(received == environment)
        #expect(write(terminal, "x", 1) == 1, "the descriptor that came is the pipe's writing end")
        var byte: UInt8 = 0
        #expect(read(ends[0], &byte, 1) == 1 && byte == UInt8(ascii: "x"))

        try SessionJoin.send(.windowChanged, on: joiner)
        try SessionJoin.send(.hangUp(signal: SIGHUP), on: joiner)
        #expect(SessionJoin.receiveRequest(on: server).message == .windowChanged)
        #expect(SessionJoin.receiveRequest(on: server).message == .hangUp(signal: SIGHUP))
        close(joiner)
        #expect(SessionJoin.receiveRequest(on: server).isGone, "the joiner's end is heard")
    }

    @Test(
        "Every reply reads back as it was sent",
        arguments: [
            SessionJoin.Reply.started, .ownProcess, .refused("storefront: the shop is full (2 sessions); try again in a few minutes"),
            .ended(.exited(0), message: nil), .ended(.signalled(SIGILL), message: "storefront: this session stopped unexpectedly (SIGILL)"),
            .ended(.unknown, message: nil),
        ])
    func replies(reply: SessionJoin.Reply) throws {
        let (joiner, server) = try pair()
        defer {
            close(joiner)
            close(server)
        }
        try SessionJoin.send(reply, on: server)
        #expect(SessionJoin.receiveReply(on: joiner).message == reply)
    }

    @Test func garbageAndAJoinWithoutItsTerminalAreMalformed() throws {
        let (joiner, server) = try pair()
        defer {
            close(joiner)
            close(server)
        }
        #expect(write(joiner, "hello there, server", 19) == 19)
        #expect(SessionJoin.receiveRequest(on: server).isMalformed)
        // A join's header and one variable, with no terminal beside it.
        let header: [UInt32] = [21, 0, 0, 1]
        let message = header.flatMap { value in withUnsafeBytes(of: value) { Array($0) } } + Array("TERM=xterm\0".utf8)
        #expect(message.withUnsafeBytes { send(joiner, $0.baseAddress, $0.count, 0) } == message.count)
        #expect(SessionJoin.receiveRequest(on: server).isMalformed)
    }

    @Test func theServerBelievesAKeyOrAGuestAndATerminalTypeNothingElse() throws {
        let key = "SHA256:UjAgW996HvZ/lq23+s8U95IwXOfBl/iqYUaRJYJmUhc"
        let connection = "192.0.2.7 50000 192.0.2.1 22"
        #expect(
            try OpenSSHJoinRequest.check(["TERM": "xterm", "STOREFRONT_SSH_KEY_FINGERPRINT": key, "SSH_CONNECTION": connection]).get()
                == OpenSSHJoinRequest(term: "xterm", isGuest: false, fingerprint: key, address: "192.0.2.7"))
        #expect(
            try OpenSSHJoinRequest.check(["TERM": "xterm", "STOREFRONT_SSH_GUEST": "1", "SSH_CONNECTION": "::1 5 ::1 22"]).get()
                == OpenSSHJoinRequest(term: "xterm", isGuest: true, fingerprint: "", address: "::1"))
        let refused: [([String: String], OpenSSHJoinProblem)] = [
            (["STOREFRONT_SSH_KEY_FINGERPRINT": key], .term),
            (["TERM": "xterm color", "STOREFRONT_SSH_KEY_FINGERPRINT": key], .term),
            (["TERM": String(repeating: "x", count: 65), "STOREFRONT_SSH_KEY_FINGERPRINT": key], .term),
            (["TERM": "xterm"], .customer),
            (["TERM": "xterm", "STOREFRONT_SSH_KEY_FINGERPRINT": "SHA256:short"], .customer),
            (["TERM": "xterm", "STOREFRONT_SSH_KEY_FINGERPRINT": key, "SSH_CONNECTION": "\u{1B}[2J 1 2 3"], .address),
        ]
        for (environment, problem) in refused {
            #expect(throws: problem) { try OpenSSHJoinRequest.check(environment).get() }
        }
    }
}

extension SessionJoin.Received {
    var message: Message? { if case .message(let message) = self { message } else { nil } }
    var isGone: Bool { if case .gone = self { true } else { false } }
    var isMalformed: Bool { if case .malformed = self { true } else { false } }
}
