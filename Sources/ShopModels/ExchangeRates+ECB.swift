/// Reading the European Central Bank's reference rates (`eurofxref-daily.xml`, or the history file, whose newest day
/// is taken): the published format a merchant drops in, with no network from the shop.
extension ExchangeRates {
    /// Why a rates file was refused, with the line it was on.
    public struct FileError: Error, Equatable, CustomStringConvertible {
        public var line: Int
        public var message: String
        public var description: String { line > 0 ? "line \(line): \(message)" : message }
    }

    /// The largest rates file read: the ECB's whole history since 1999 is about 7 MB, and a day's is 2 KB.
    public static let maximumFileBytes = 16 << 20

    /// The rates of the newest day in an ECB-format XML file.
    ///
    /// The file's elements are read as tags with attributes (`<Cube time='2026-11-27'>`, `<Cube currency='USD'
    /// rate='1.0578'/>`); comments, the XML declaration and other elements are passed over.
    public init(ecbXML bytes: [UInt8]) throws(FileError) {
        guard bytes.count <= Self.maximumFileBytes else {
            throw FileError(line: 0, message: "is \(bytes.count) bytes, more than a rates file holds (at most \(Self.maximumFileBytes))")
        }
        var day: String?
        var dayLine = 0
        var rates: [String: Rate] = [:]
        var scanner = TagScanner(bytes: bytes)
        while let tag = try scanner.next() {
            guard tag.name == "Cube" else { continue }
            if let time = tag.attributes["time"] {
                // The history file lists the newest day first: later days are older and are not read.
                if day != nil { break }
                guard UTCTime.dayNumber(time) != nil else { throw FileError(line: tag.line, message: "time \"\(time)\" is not a day (YYYY-MM-DD)") }
                day = time
                dayLine = tag.line
            } else if let code = tag.attributes["currency"] {
                guard day != nil else { throw FileError(line: tag.line, message: "a rate comes before its day's <Cube time='…'>") }
                guard code.count == 3, code.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
                    throw FileError(line: tag.line, message: "currency \"\(code)\" is not an ISO 4217 code")
                }
                guard let written = tag.attributes["rate"], let rate = Rate(written) else {
                    throw FileError(line: tag.line, message: "\(code)'s rate must be a positive decimal such as 1.0578")
                }
                guard rates[code] == nil else { throw FileError(line: tag.line, message: "\(code) is listed twice on one day") }
                rates[code] = rate
            }
        }
        guard let day else { throw FileError(line: 0, message: "has no <Cube time='…'> day: is it the ECB's eurofxref XML?") }
        guard !rates.isEmpty else { throw FileError(line: dayLine, message: "the day \(day) lists no rates") }
        self.init(day: day, perEuro: rates)
    }
}

/// The tags of an XML text, one at a time, with their attributes; text between tags is passed over.
private struct TagScanner {
    struct Tag {
        var name: String
        var attributes: [String: String]
        var line: Int
    }

    let bytes: [UInt8]
    var at = 0
    var line = 1

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func next() throws(ExchangeRates.FileError) -> Tag? {
        while at < bytes.count {
            let byte = bytes[at]
            if byte == UInt8(ascii: "\n") { line += 1 }
            guard byte == UInt8(ascii: "<") else {
                at += 1
                continue
            }
            if starts(with: "<!--") {
                try skip(past: "-->")
                continue
            }
            if starts(with: "<?") || starts(with: "<!") || starts(with: "</") {
                try skip(past: ">")
                continue
            }
            return try tag()
        }
        return nil
    }

    private func starts(with text: String) -> Bool {
        let needle = Array(text.utf8)
        return at + needle.count <= bytes.count && Array(bytes[at..<at + needle.count]) == needle
    }

    private mutating func skip(past text: String) throws(ExchangeRates.FileError) {
        let needle = Array(text.utf8)
        let start = line
        while at < bytes.count {
            if starts(with: text) {
                at += needle.count
                return
            }
            if bytes[at] == UInt8(ascii: "\n") { line += 1 }
            at += 1
        }
        throw ExchangeRates.FileError(line: start, message: "a tag or comment is not closed")
    }

    private mutating func tag() throws(ExchangeRates.FileError) -> Tag {
        let start = line
        at += 1
        var name = ""
        while at < bytes.count, !isSpace(bytes[at]), bytes[at] != UInt8(ascii: ">"), bytes[at] != UInt8(ascii: "/") {
            name.unicodeScalars.append(Unicode.Scalar(bytes[at]))
            at += 1
        }
        // A prefixed name (`gesmes:Envelope`) is named by its local part.
        if let colon = name.lastIndex(of: ":") { name = String(name[name.index(after: colon)...]) }
        var attributes: [String: String] = [:]
        while at < bytes.count {
            let byte = bytes[at]
            if byte == UInt8(ascii: "\n") { line += 1 }
            if isSpace(byte) || byte == UInt8(ascii: "/") {
                at += 1
                continue
            }
            if byte == UInt8(ascii: ">") {
                at += 1
                return Tag(name: name, attributes: attributes, line: start)
            }
            var key = ""
            while at < bytes.count, bytes[at] != UInt8(ascii: "="), !isSpace(bytes[at]), bytes[at] != UInt8(ascii: ">") {
                key.unicodeScalars.append(Unicode.Scalar(bytes[at]))
                at += 1
            }
            while at < bytes.count, isSpace(bytes[at]) { at += 1 }
            guard at < bytes.count, bytes[at] == UInt8(ascii: "="), at + 1 < bytes.count else {
                throw ExchangeRates.FileError(line: line, message: "attribute \"\(key)\" of <\(name)> has no value")
            }
            at += 1
            while at < bytes.count, isSpace(bytes[at]) { at += 1 }
            guard at < bytes.count, bytes[at] == UInt8(ascii: "'") || bytes[at] == UInt8(ascii: "\"") else {
                throw ExchangeRates.FileError(line: line, message: "attribute \"\(key)\" of <\(name)> is not quoted")
            }
            let quote = bytes[at]
            at += 1
            let valueStart = at
            while at < bytes.count, bytes[at] != quote {
                if bytes[at] == UInt8(ascii: "\n") { line += 1 }
                at += 1
            }
            guard at < bytes.count else { throw ExchangeRates.FileError(line: start, message: "an attribute of <\(name)> is not closed") }
            attributes[key] = String(decoding: bytes[valueStart..<at], as: UTF8.self)
            at += 1
        }
        throw ExchangeRates.FileError(line: start, message: "<\(name)> is not closed")
    }

    private func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
    }
}
