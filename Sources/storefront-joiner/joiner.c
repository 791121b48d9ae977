// storefront-joiner SOCKET FALLBACK...: what `storefront sshd-session --join SOCKET` becomes once it has checked the
// login. It hands its terminal (descriptor 0, the pty sshd opened) to the server listening at SOCKET, which runs the
// session in one of its workers, and waits: window changes (SIGWINCH) and hang-ups (SIGHUP, SIGTERM) go to the
// server, the session's end comes back, and this process exits with its status. When no server takes the session,
// it becomes FALLBACK (`storefront run …`), the shop in a process of its own.
//
// In C, so a joined session's waiting process costs what a small C program costs: the storefront binary, started
// anew, writes megabytes of its own pages just being loaded (its relocations), which is what joining saves.
// The messages are the join socket's (session_protocol.h; PseudoTerminal's SessionJoin reads and writes the same).
#define _GNU_SOURCE
#include "descriptor_passing.h"
#include "session_protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

extern char **environ;

static int heard[2] = {-1, -1};
static const int passed_on[] = {SIGWINCH, SIGHUP, SIGTERM, SIGINT, SIGQUIT};
static struct termios original;
static int has_modes;

// The reset the serve front writes after a session that died of a signal (ShopModels' TerminalReset.afterCrash).
static const char after_crash[] =
    "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1049l\x1b[?1l\x1b>\x1b[?25h\x1b[0m\r\n";

static void hear(int number) {
    int saved = errno;
    unsigned char byte = (unsigned char)number;
    (void)write(heard[1], &byte, 1);
    errno = saved;
}

static void write_all(int descriptor, const char *text, size_t length) {
    while (length > 0) {
        ssize_t written = write(descriptor, text, length);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return;
        text += written;
        length -= (size_t)written;
    }
}

// The server's words, each control character but none shown as '?': what reaches a terminal is never an escape.
static void write_text(const char *text) {
    char safe[1024];
    size_t length = 0;
    for (; *text && length < sizeof safe; text++) {
        unsigned char byte = (unsigned char)*text;
        safe[length++] = byte < 0x20 || byte == 0x7f ? '?' : (char)byte;
    }
    write_all(2, safe, length);
}

static void put_terminal_back(void) {
    if (has_modes) tcsetattr(0, TCSANOW, &original);
}

// Becomes the shop of its own: every signal as it was, the terminal as it was.
static void run_alone(char **fallback) {
    put_terminal_back();
    for (size_t index = 0; index < sizeof passed_on / sizeof passed_on[0]; index++) signal(passed_on[index], SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    execve(fallback[0], fallback, environ);
    fprintf(stderr, "storefront: cannot start the shop: %s\n", strerror(errno));
    exit(1);
}

static int connect_to(const char *path) {
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof address.sun_path) return -1;
    strcpy(address.sun_path, path);
    int server = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (server < 0) return -1;
    if (connect(server, (struct sockaddr *)&address, sizeof address) != 0) {
        close(server);
        return -1;
    }
    return server;
}

// The join: the header, then the variables the server reads as NUL-terminated KEY=VALUE strings, the terminal beside.
static int send_join(int server) {
    static const char *names[] = {
        "TERM", "SSH_CONNECTION", "STOREFRONT_SSH_KEY_FINGERPRINT", "STOREFRONT_SSH_GUEST", "STOREFRONT_SESSION_LANGUAGE"};
    char message[8192];
    struct request_header header = {kind_join, 0, 0, 0};
    size_t length = sizeof header;
    for (size_t index = 0; index < sizeof names / sizeof names[0]; index++) {
        const char *value = getenv(names[index]);
        if (!value) continue;
        int added = snprintf(message + length, sizeof message - length, "%s=%s", names[index], value);
        if (added < 0 || (size_t)added + 1 > sizeof message - length) return -1;
        length += (size_t)added + 1;
        header.environment_count++;
    }
    memcpy(message, &header, sizeof header);
    return sf_send_with_descriptor(server, message, length, 0);
}

static void send_word_pair(int server, uint32_t kind, uint32_t value) {
    uint32_t words[4] = {kind, 0, value, 0};
    sf_send_with_descriptor(server, words, sizeof words, -1);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: storefront-joiner SOCKET PROGRAM [ARGUMENTS...] (storefront sshd-session --join runs it)\n");
        return 64;
    }
    char **fallback = argv + 2;
    // The Swift process this was exec'd from may have blocked signals in its thread, and a mask outlives exec: the
    // shop alone, too, starts with none blocked.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    int server = connect_to(argv[1]);
    if (server < 0) run_alone(fallback);
    if (pipe2(heard, O_CLOEXEC | O_NONBLOCK) != 0) run_alone(fallback);
    struct sigaction action = {.sa_handler = hear, .sa_flags = SA_RESTART};
    sigemptyset(&action.sa_mask);
    for (size_t index = 0; index < sizeof passed_on / sizeof passed_on[0]; index++) sigaction(passed_on[index], &action, NULL);
    signal(SIGPIPE, SIG_IGN);
    // The shop's keys are keys: Ctrl-C must reach it, not end this process (which would end the session).
    has_modes = tcgetattr(0, &original) == 0;
    if (has_modes) {
        struct termios modes = original;
        modes.c_lflag &= ~(tcflag_t)ISIG;
        modes.c_iflag |= IUTF8;
        tcsetattr(0, TCSANOW, &modes);
    }
    if (send_join(server) != 0) run_alone(fallback);

    int running = 0, hung_up = 0;
    unsigned char reply[request_capacity > 16384 ? 16384 : request_capacity];
    for (;;) {
        struct pollfd ready[2] = {{server, POLLIN, 0}, {heard[0], POLLIN, 0}};
        // Until the server answers, a bound: a server that took the connection and hangs leaves the shop to us. Once
        // hung up, another: the server ends a session that does not end within seconds, and nobody is left to wait.
        int count = poll(ready, 2, hung_up ? 15000 : running ? -1 : 30000);
        if (count < 0 && errno == EINTR) continue;
        if (count == 0 && hung_up) return 128 + SIGHUP;
        if (count <= 0) running ? exit(255) : run_alone(fallback);
        if (ready[1].revents) {
            unsigned char number;
            while (read(heard[0], &number, 1) == 1) {
                if (number == SIGWINCH) send_word_pair(server, kind_join_window_changed, 0);
                if (number == SIGHUP || number == SIGTERM) {
                    hung_up = 1;
                    uint32_t words[2] = {kind_join_hang_up, number};
                    sf_send_with_descriptor(server, words, sizeof words, -1);
                }
            }
        }
        if (!ready[0].revents) continue;
        int descriptor = -1, truncated = 0;
        ssize_t length = sf_receive_with_descriptor(server, reply, sizeof reply - 1, &descriptor, &truncated);
        if (descriptor >= 0) close(descriptor);
        if (length < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        if (length < 12 || truncated) {
            if (!running) run_alone(fallback);
            // The server went away while the session ran there.
            write_all(1, after_crash, sizeof after_crash - 1);
            put_terminal_back();
            static const char gone[] = "\r\nstorefront: the shop's server stopped; your cart is saved. Reconnect to go on.\r\n";
            write_all(2, gone, sizeof gone - 1);
            return 255;
        }
        uint32_t words[3];
        memcpy(words, reply, sizeof words);
        reply[length] = 0;
        const char *text = (const char *)reply + 12;
        switch (words[0]) {
        case kind_join_started: running = 1; break;
        case kind_join_own_process: run_alone(fallback); break;
        case kind_join_refused:
            put_terminal_back();
            write_text(text);
            write_all(2, "\n", 1);
            return 1;
        case kind_join_ended: {
            // A shop that died of a signal could not put the terminal back: as the serve front does, this does.
            if (words[1] == join_end_signalled) write_all(1, after_crash, sizeof after_crash - 1);
            put_terminal_back();
            if (*text) {
                write_all(2, "\r\n", 2);
                write_text(text);
                write_all(2, "\r\n", 2);
            }
            int value = (int)words[2];
            if (words[1] == join_end_exited) return value >= 0 && value <= 255 ? value : 255;
            if (words[1] == join_end_signalled) return value >= 1 && value <= 127 ? 128 + value : 255;
            return 255;
        }
        default:
            if (!running) run_alone(fallback);
        }
    }
}
