// The session host: a process made once, at a server's start, that forks one child per session. Forking a
// pre-initialised process shares its pages (the relocated program, the Swift runtime's caches) with every session,
// where starting a new program gives each session its own copy. It must stay single-threaded, so the loop is C.
#define _GNU_SOURCE
#include "session_host.h"
#include "descriptor_passing.h"
#include "session_protocol.h"

#include <dirent.h>
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

static char request_buffer[request_capacity];

/// Where this process's command line and environment strings lie, for `retitle`; from /proc/self/stat, read at start.
static char *title_start, *title_end;

static void find_title_area(void) {
    FILE *stat = fopen("/proc/self/stat", "r");
    if (!stat) return;
    char line[4096];
    size_t length = fread(line, 1, sizeof line - 1, stat);
    fclose(stat);
    line[length] = 0;
    char *field = strrchr(line, ')');
    if (!field) return;
    // After the command name: field 3 onwards; arg_start is field 48 and env_end field 51.
    unsigned long values[52] = {0};
    int number = 2;
    for (char *token = strtok(field + 1, " \n"); token && number < 51; token = strtok(NULL, " \n")) {
        values[++number] = strtoul(token, NULL, 10);
    }
    if (number < 51 || values[51] <= values[48]) return;
    title_start = (char *)values[48];
    title_end = (char *)values[51];
}

/// Shows `arguments` as this process's command line in ps and /proc/PID/cmdline (the host's own, a bare program
/// name, would otherwise stand for every session): written over the host's command line and environment strings,
/// which nothing in the child uses once its environment is replaced. Cut short where that space ends.
static void retitle(char *const *arguments, uint32_t count) {
    if (!title_start) return;
    size_t room = (size_t)(title_end - title_start) - 1;
    char *cursor = title_start;
    const char *program = "storefront";
    for (uint32_t index = 0; index <= count; index++) {
        const char *piece = index == 0 ? program : arguments[index - 1];
        size_t length = strlen(piece);
        size_t used = (size_t)(cursor - title_start);
        if (used + length + (index > 0) > room) break;
        if (index > 0) *cursor++ = ' ';
        memcpy(cursor, piece, length);
        cursor += length;
    }
    memset(cursor, 0, (size_t)(title_end - cursor));
}

/// In a fresh child: the request's terminal, environment and arguments; signals as a new program has them.
/// For a worker, `terminal` is its socket to the server instead: it becomes descriptor 3, and stdin /dev/null.
static int become_session(int terminal, char *strings, size_t length, const struct request_header *header,
                          sf_session_arguments *arguments) {
    // Every disposition is already the default: the host was started with them so (POSIX_SPAWN_SETSIGDEF) and sets
    // none. Only the mask changed (SIGCHLD, for the signalfd).
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (setsid() < 0) return -1;
    if (header->kind == kind_worker) {
        if (terminal != 3) {
            if (dup2(terminal, 3) < 0) return -1;
            close(terminal);
        }
        int nothing = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (nothing < 0 || dup2(nothing, 0) < 0) return -1;
        close(nothing);
    } else {
        if (ioctl(terminal, TIOCSCTTY, 0) < 0) return -1;
        for (int standard = 0; standard < 3; standard++) {
            if (dup2(terminal, standard) < 0) return -1;
        }
        if (terminal > 2) close(terminal);
    }

    uint32_t total = header->argument_count + header->environment_count;
    char **pieces = calloc((size_t)total + 1, sizeof(char *));
    if (!pieces) return -1;
    size_t offset = 0;
    for (uint32_t index = 0; index < total; index++) {
        char *end = memchr(strings + offset, 0, length - offset);
        if (offset >= length || !end) {
            errno = EINVAL;
            return -1;
        }
        pieces[index] = strings + offset;
        offset = (size_t)(end - strings) + 1;
    }
    clearenv();
    for (uint32_t index = header->argument_count; index < total; index++) putenv(pieces[index]);
    pieces[header->argument_count] = NULL;
    retitle(pieces, header->argument_count);
    arguments->arguments = pieces;
    arguments->count = (int)header->argument_count;
    // Another session's process (the same user) may not read this one's memory through /proc or ptrace.
    prctl(PR_SET_DUMPABLE, 0);
    return 0;
}

/// Reaps every ended child and tells the server how each ended. Returns -1 once the server is gone.
static int report_endings(int control) {
    for (;;) {
        int status = 0;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0) return 0;
        struct host_reply reply = {kind_ended, 0, pid, 0, status};
        if (sf_send_with_descriptor(control, &reply, sizeof reply, -1) < 0) return -1;
    }
}

static void close_everything_but(int keep) {
    DIR *directory = opendir("/proc/self/fd");
    if (!directory) return;
    int listing = dirfd(directory);
    int open_descriptors[1024];
    int count = 0;
    for (struct dirent *entry; (entry = readdir(directory)) && count < 1024;) {
        if (entry->d_name[0] == '.') continue;
        int descriptor = atoi(entry->d_name);
        if (descriptor > 2 && descriptor != keep && descriptor != listing) open_descriptors[count++] = descriptor;
    }
    closedir(directory);
    for (int index = 0; index < count; index++) close(open_descriptors[index]);
}

int sf_session_host_serve(int control, sf_session_arguments *arguments) {
    close_everything_but(control);
    find_title_area();
    // Each session brings its own environment; the host's strings become room for the sessions' titles.
    clearenv();
    char *const host_title[] = {"session-host"};
    retitle(host_title, 1);
    // One heap for all of a session's threads: a heap per thread (glibc's default, up to 8 per core) costs each
    // session its own arenas' slack, where a session's threads take turns anyway.
    mallopt(M_ARENA_MAX, 1);
    sigset_t children;
    sigemptyset(&children);
    sigaddset(&children, SIGCHLD);
    if (sigprocmask(SIG_BLOCK, &children, NULL) < 0) return -1;
    int endings = signalfd(-1, &children, SFD_CLOEXEC | SFD_NONBLOCK);
    if (endings < 0) return -1;
    for (;;) {
        struct pollfd watched[2] = {{control, POLLIN, 0}, {endings, POLLIN, 0}};
        if (poll(watched, 2, -1) < 0) {
            if (errno == EINTR) continue;
            _exit(70);
        }
        if (watched[1].revents) {
            struct signalfd_siginfo information;
            while (read(endings, &information, sizeof information) > 0) {}
            if (report_endings(control) < 0) _exit(0);
        }
        if (!watched[0].revents) continue;
        int terminal = -1, truncated = 0;
        ssize_t length = sf_receive_with_descriptor(control, request_buffer, request_capacity, &terminal, &truncated);
        // The server is gone: its sessions keep running until their terminals hang up.
        if (length == 0 || (length < 0 && errno != EAGAIN)) _exit(0);
        if (length < 0) continue;
        struct request_header header;
        struct host_reply reply = {kind_started, 0, -1, 0, 0};
        if (length >= (ssize_t)sizeof header) memcpy(&header, request_buffer, sizeof header);
        int known = length >= (ssize_t)sizeof header && (header.kind == kind_request || header.kind == kind_worker);
        if ((size_t)length < sizeof header || terminal < 0 || truncated || !known) {
            if ((size_t)length >= sizeof header) reply.request = header.request;
            reply.error = truncated ? E2BIG : EINVAL;
            if (terminal >= 0) close(terminal);
            if (sf_send_with_descriptor(control, &reply, sizeof reply, -1) < 0) _exit(0);
            continue;
        }
        reply.request = header.request;
        // The child says on this pipe when its terminal is in place (by closing it) or why not (an errno): the
        // answer waits for it, so a session is on its terminal when its start is answered, as after posix_spawn.
        int ready[2];
        if (pipe2(ready, O_CLOEXEC) < 0) ready[0] = ready[1] = -1;
        pid_t pid = fork();
        if (pid == 0) {
            close(control);
            close(endings);
            if (ready[0] >= 0) close(ready[0]);
            if (become_session(terminal, request_buffer + sizeof header, (size_t)length - sizeof header, &header, arguments) < 0) {
                int code = errno;
                if (ready[1] >= 0 && write(ready[1], &code, sizeof code) < 0) {}
                _exit(127);
            }
            if (ready[1] >= 0) close(ready[1]);
            return 0;
        }
        reply.error = pid < 0 ? errno : 0;
        close(terminal);
        if (ready[1] >= 0) close(ready[1]);
        if (ready[0] >= 0) {
            int code = 0;
            ssize_t said;
            do said = read(ready[0], &code, sizeof code);
            while (said < 0 && errno == EINTR);
            if (pid > 0 && said == (ssize_t)sizeof code) reply.error = code;
            close(ready[0]);
        }
        // Opened before this loop can reap the child, so it names this child even if it has already ended.
        int pidfd = pid > 0 ? pidfd_open(pid, 0) : -1;
        reply.pid = pid;
        if (pid > 0 && pidfd < 0) reply.error = errno;
        int sent = sf_send_with_descriptor(control, &reply, sizeof reply, pidfd);
        if (pidfd >= 0) close(pidfd);
        if (sent < 0) _exit(0);
    }
}
