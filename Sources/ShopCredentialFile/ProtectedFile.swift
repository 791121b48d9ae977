import Foundation
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Files that hold secrets: read only when their owner alone can, replaced atomically.
///
/// The credential file and `storefront serve`'s host key both go through here, so both refuse
/// the same things (a symlink, another owner, group or other access) and write the same way.
public enum ProtectedFile {
    /// Why a protected file cannot be read or written.
    public enum Failure: Error, Equatable {
        case missing
        case notRegularFile
        case wrongOwner(uid_t)
        case tooOpen(mode_t)
        case io(String)
    }

    /// Reads `path`, refusing a symlink, anything but a regular file, a file another user owns,
    /// and a file that group or others may access (as ssh refuses such a private key).
    public static func read(_ path: FilePath) throws(Failure) -> Data {
        // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever; the
        // type is checked right after, and a regular file reads the same either way.
        let descriptor = path.withPlatformString { open($0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK) }
        if descriptor < 0 {
            if errno == ENOENT { throw .missing }
            // O_NOFOLLOW's answer for a link: another user could point it at anything.
            if errno == ELOOP { throw .io("it is a symbolic link; name the file itself") }
            throw .io(String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .io(String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notRegularFile }
        guard info.st_uid == geteuid() else { throw .wrongOwner(info.st_uid) }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else { throw .tooOpen(mode) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = Glibc.read(descriptor, &buffer, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw .io(String(cString: strerror(errno)))
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    /// Replaces `path` with `data`, mode exactly `mode`: a temporary file written in full, fsynced,
    /// renamed over the old one, then the directory fsynced. A missing directory is made 0700.
    public static func replace(_ file: FilePath, with data: Data, mode: mode_t = 0o600) throws(Failure) {
        // Each step below is a C call or Foundation's, which take the path as text.
        let path = file.string
        let directory = file.removingLastComponent().string
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            // The parent may be missing too: let Foundation create the chain, still private.
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw .io("cannot create \(directory)")
            }
        }
        let temporary = "\(path).tmp-\(getpid())"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .io(String(cString: strerror(errno))) }
        var failure: String?
        data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, base + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                offset += written
            }
        }
        // The umask may have narrowed the mode; it must be exactly `mode`.
        if failure == nil, fchmod(descriptor, mode) != 0 { failure = String(cString: strerror(errno)) }
        if failure == nil, fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        close(descriptor)
        if let failure {
            unlink(temporary)
            throw .io(failure)
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .io(reason)
        }
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }
}
