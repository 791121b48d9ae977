#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Starting a program with posix_spawn and reaping it: for a session's program, and for the session host.
enum ProgramStart {
    /// Starts `executable` with every signal at its default and unblocked, as the leader of a new session whose
    /// controlling terminal (and descriptors 0-2) is the pty at `terminal`.
    static func spawn(_ executable: String, arguments: [String], environment: [String: String], terminal: String) throws -> pid_t {
        // POSIX_SPAWN_SETSID (0x80): glibc calls setsid() before the file actions, so opening the
        // pty below, without O_NOCTTY, makes it the new session's controlling terminal.
        try spawn(executable, arguments: arguments, environment: environment, flags: 0x80) { actions in
            posix_spawn_file_actions_addopen(&actions, 0, terminal, O_RDWR, 0)
            posix_spawn_file_actions_adddup2(&actions, 0, 1)
            posix_spawn_file_actions_adddup2(&actions, 0, 2)
        }
    }

    /// Starts `executable` with `descriptors` (this process's descriptor → the child's) and standard input from
    /// /dev/null, in a process group of its own when asked: a Ctrl-C meant for this process does not reach it.
    static func spawn(_ executable: String, arguments: [String], environment: [String: String], descriptors: [Int32: Int32], ownProcessGroup: Bool)
        throws -> pid_t
    {
        try spawn(executable, arguments: arguments, environment: environment, flags: ownProcessGroup ? Int16(POSIX_SPAWN_SETPGROUP) : 0) { actions in
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            // dup2 onto another number clears close-on-exec on the copy; the original stays closed in the child.
            for (mine, theirs) in descriptors { posix_spawn_file_actions_adddup2(&actions, mine, theirs) }
        }
    }

    private static func spawn(
        _ executable: String, arguments: [String], environment: [String: String], flags: Int16,
        fileActions: (inout posix_spawn_file_actions_t) -> Void
    ) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var everySignal = sigset_t()
        sigfillset(&everySignal)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigdefault(&attributes, &everySignal)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK) | flags)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        fileActions(&actions)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw PseudoTerminalError("posix_spawn \(executable)", spawned) }
        return pid
    }

    /// Blocks until the child `pid` ends and reaps it; `.unknown` if it cannot be waited for.
    static func wait(for pid: pid_t) -> ProcessTermination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            if errno != EINTR { return .unknown }
        }
        return ProcessTermination(waitStatus: status)
    }
}
