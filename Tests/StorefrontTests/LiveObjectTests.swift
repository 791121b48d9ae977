import Foundation
import LiveObjects
import StorefrontCore
import StorefrontTesting
import Synchronization
import Testing

/// What a failed expectation reads of the values it shows: never the fields of a class another thread may be changing.
@MainActor
@Suite("Values a failed expectation reflects")
struct LiveObjectTests {
    /// Every class whose fields Mirror read, walking `subject` as Swift Testing does (ten levels, each object once).
    nonisolated static func classesRead(in subject: Any) -> [String] {
        var read: [String] = []
        var seen: Set<ObjectIdentifier> = []
        func walk(_ value: Any, depth: Int) {
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .class {
                let object = value as AnyObject
                guard seen.insert(ObjectIdentifier(object)).inserted else { return }
                if !mirror.children.isEmpty { read.append(String(describing: mirror.subjectType)) }
            }
            guard depth < 10 else { return }
            for child in mirror.children { walk(child.value, depth: depth + 1) }
        }
        walk(subject, depth: 0)
        return read
    }

    @Test func aStackAndAShopsStateAreReadWithoutTheFieldsOfAnyClass() async throws {
        let driver = await ScriptedDriver()
        try await driver.press("a,c")
        #expect(Self.classesRead(in: driver.stack) == [], "the repositories, the processor and the clock")
        #expect(Self.classesRead(in: driver.state) == [])
        #expect(Self.classesRead(in: driver) == [])
    }

    /// The walk above finds what it looks for: a class that is not a LiveObject has its fields read.
    @Test func aClassThatIsNoLiveObjectIsRead() {
        final class Tally: @unchecked Sendable {
            let lock = NSLock()
            var count = 0
        }
        struct Holder {
            var tally = Tally()
            var clock = SteppedClock()
        }
        #expect(Self.classesRead(in: Holder()) == ["Tally", "NSLock"], "the tally, and its lock; never the clock's fields")
    }
}
