import Foundation

/// The user this process runs as: looked up once (each lookup reads /etc/passwd), and by a session host before it
/// forks, so the sessions of its workers find them known instead of reading the file twice at every start.
public enum ProcessUser {
    public static let name = NSUserName()
    public static let home = NSHomeDirectory()
}
