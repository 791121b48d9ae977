import CustomDump
import SnapshotTesting
import Testing

/// The assertion helpers this suite relies on must fail a test when they find a difference.
///
/// swift-custom-dump reports through IssueReporting, which on Linux records a Swift Testing
/// issue only when `IssueReportingTestSupport` is linked into the test target; without it a
/// difference is printed and the test passes. `withKnownIssue` fails when no issue is recorded.
@Suite("Assertion helpers fail for real")
struct AssertionHelperTests {
    @Test func expectNoDifferenceFailsATest() {
        withKnownIssue("a difference must be recorded as an issue") {
            expectNoDifference([nil, "Authorizing…"], [nil, "Authorizing…", nil] as [String?])
        }
    }

    @Test func expectDifferenceFailsATestWhenTheChangeIsWrong() {
        withKnownIssue("a wrong change must be recorded as an issue") {
            var value = 1
            expectDifference(value) {
                value = 2
            } changes: {
                $0 = 3
            }
        }
    }

    @Test func snapshotsFailATest() {
        // The reference says "expected": the same text passes, so the mismatch below is about the text, not the file.
        assertSnapshot(of: "expected", as: .lines, named: "reference", record: .never)
        withKnownIssue("a snapshot mismatch must be recorded as an issue") {
            assertSnapshot(of: "drawn", as: .lines, named: "reference", record: .never)
        }
    }
}
