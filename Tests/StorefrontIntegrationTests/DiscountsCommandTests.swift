import Foundation
import StorefrontTesting
import Testing

/// `storefront discounts` on a shop's data directory: made, listed as text and JSON, paused, resumed and deleted; what
/// is wrong with the options told with 64, another code's name and an unknown code with 65.
@Suite("storefront discounts", .ownThreads)
struct DiscountsCommandTests {
    let data = TemporaryDirectory.make().path

    /// `storefront discounts ARGUMENTS` on a shop made by a first headless session.
    func storefront(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let binary = try BuiltProduct.requireStorefront()
        if !FileManager.default.fileExists(atPath: data + "/storefront.sqlite") {
            try #require(try Subprocess.run(binary, ["headless", "--data-dir", data, "--keys", "q"]).status == 0)
        }
        let run = try Subprocess.run(binary, ["discounts"] + arguments + ["--data-dir", data])
        return (run.status, run.stdout, run.stderr)
    }

    @Test func aCodeIsMadeListedPausedResumedAndDeleted() throws {
        let made = try storefront(["create", "launch-10", "--percent", "12.5", "--uses", "100", "--per-customer", "1", "--until", "2027-01-01"])
        #expect(made.status == 0 && made.stdout == "LAUNCH-10: 12.5% off; 100 uses, 1 a customer; until 2027-01-01 00:00 UTC.\n", "\(made)")
        #expect(try storefront(["create", "ship", "--free-shipping", "--minimum", "20.00", "--only", "mug-stdout,tote-canvas"]).status == 0)
        // A code only for a product the catalog does not have would never apply: 65, naming it, and nothing made.
        let nowhere = try storefront(["create", "ghost", "--percent", "5", "--only", "mug-stdout,no-such"])
        #expect(nowhere.status == 65 && nowhere.stderr.contains("the catalog has no product no-such"), "\(nowhere)")
        #expect(try storefront(["create", "LAUNCH-10", "--amount", "5"]).status == 65, "another code's name")

        let listed = try storefront(["list", "--json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
        let codes = try #require(document["codes"] as? [[String: Any]])
        #expect(codes.map { $0["code"] as? String } == ["LAUNCH-10", "SHIP"])
        #expect(codes[0]["kind"] as? String == "percentage" && codes[0]["value"] as? String == "12.5" && codes[0]["uses"] as? Int == 0)
        #expect(codes[1]["minimumSubtotal"] as? String == "20.00" && codes[1]["onlyFor"] as? [String] == ["mug-stdout", "tote-canvas"])

        #expect(try storefront(["pause", "ship"]).status == 0)
        #expect(try storefront(["list"]).stdout.contains("SHIP  free shipping; at least $20.00; only mug-stdout, tote-canvas; paused  (used 0)"))
        #expect(try storefront(["resume", "SHIP"]).status == 0)
        #expect(try storefront(["delete", "ship"]).status == 0)
        let gone = try storefront(["pause", "SHIP"])
        #expect(gone.status == 65 && gone.stderr.contains("no discount code SHIP"), "\(gone)")
        // A variant is named by its SKU.
        #expect(try storefront(["create", "beans", "--percent", "5", "--only", "coffee-beans-filter-1kg"]).status == 0)
    }

    @Test(arguments: [
        (["create", "x"], "a code is 3 to 32 letters"),
        (["create", "SAVE"], "one of --percent, --amount or --free-shipping"),
        (["create", "SAVE", "--percent", "150"], "--percent must be more than 0 and at most 100"),
        // Not a number as written: no prefix read as one, no exponent.
        (["create", "SAVE", "--percent", "50abc"], "--percent must be more than 0 and at most 100"),
        (["create", "SAVE", "--percent", "1e2"], "--percent must be more than 0 and at most 100"),
        (["create", "SAVE", "--percent", "10", "--free-shipping"], "one of --percent, --amount or --free-shipping"),
        (["create", "SAVE", "--amount", "3.999"], "--amount must be a plain amount"),
        (["create", "SAVE", "--percent", "5", "--uses", "0"], "--uses counts from 1 to 1000000000"),
        (["create", "SAVE", "--percent", "5", "--from", "tomorrow"], "--from must be a date"),
        (["create", "SAVE", "--percent", "5", "--from", "2027-02-01", "--until", "2027-01-01"], "--until must come after --from"),
    ])
    func wrongOptionsAreToldWith64(_ arguments: [String], _ told: String) throws {
        let run = try storefront(arguments)
        #expect(run.status == 64 && run.stderr.contains(told), "\(run)")
    }
}
