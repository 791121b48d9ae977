// posix_openpt and friends are declared only with _XOPEN_SOURCE, which Swift's Glibc module lacks.
#define _XOPEN_SOURCE 700
#define _GNU_SOURCE
#include "pseudo_terminal.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int sf_open_pseudo_terminal(char *path, size_t path_length) {
    int controller = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (controller < 0) return -1;
    if (grantpt(controller) != 0 || unlockpt(controller) != 0) goto fail;
    int named = ptsname_r(controller, path, path_length);
    if (named != 0) { errno = named; goto fail; }
    return controller;
fail: {
        int saved = errno;
        close(controller);
        errno = saved;
        return -1;
    }
}

static int joiner_pipe[2] = {-1, -1};
static const int joiner_numbers[] = {SIGWINCH, SIGHUP, SIGTERM, SIGINT, SIGQUIT};

static void joiner_heard(int number) {
    int saved = errno;
    unsigned char byte = (unsigned char)number;
    (void)write(joiner_pipe[1], &byte, 1);
    errno = saved;
}

int sf_joiner_signals(void) {
    // A handler and a pipe, not signalfd: a signal for the process reaches any thread not blocking it, and the Swift
    // runtime's threads block nothing.
    if (pipe2(joiner_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = joiner_heard;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (size_t index = 0; index < sizeof joiner_numbers / sizeof joiner_numbers[0]; index++) sigaction(joiner_numbers[index], &action, NULL);
    signal(SIGPIPE, SIG_IGN);
    return joiner_pipe[0];
}

void sf_joiner_signals_end(int descriptor) {
    (void)descriptor;
    for (size_t index = 0; index < sizeof joiner_numbers / sizeof joiner_numbers[0]; index++) signal(joiner_numbers[index], SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    for (int end = 0; end < 2; end++) {
        if (joiner_pipe[end] >= 0) close(joiner_pipe[end]);
        joiner_pipe[end] = -1;
    }
}

int sf_next_signal(int descriptor) {
    unsigned char byte;
    ssize_t length;
    do length = read(descriptor, &byte, 1);
    while (length < 0 && errno == EINTR);
    return length == 1 ? byte : 0;
}
