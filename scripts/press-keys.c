// press-keys: the key press of scripts/bench-ssh-sessions.py, in C so the load generator's own CPU (which shares the
// machine's cores with the server it measures) stays a small part of a burst of 1,000 keys.
//
//     press-keys < "FD KEY" lines      (descriptors inherited: each session's pty, non-blocking)
//
// Writes each KEY (one byte) to its FD, all at once, then reads every FD as it becomes readable until each has
// answered and all have been quiet for 20 ms (at most 5 s). Prints one line per FD, in the order given:
// "FD FIRST_MS LAST_MS" (from its key to the first and the last byte read), or "FD - -" for no answer.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000.0 + t.tv_nsec / 1e6;
}

int main(void) {
    int capacity = 1024, count = 0, fd, key;
    int *fds = malloc(sizeof(int) * capacity);
    char *keys = malloc(capacity);
    while (scanf("%d %d", &fd, &key) == 2) {
        if (count == capacity) {
            capacity *= 2;
            fds = realloc(fds, sizeof(int) * capacity);
            keys = realloc(keys, capacity);
        }
        fds[count] = fd;
        keys[count++] = (char)key;
    }
    if (count == 0) return 0;
    int highest = 0;
    for (int i = 0; i < count; i++) highest = fds[i] > highest ? fds[i] : highest;
    // By descriptor: where each session's times go.
    int *slot = malloc(sizeof(int) * (highest + 1));
    double *sent = calloc(count, sizeof(double)), *first = calloc(count, sizeof(double)), *last = calloc(count, sizeof(double));
    int poll = epoll_create1(EPOLL_CLOEXEC);
    if (poll < 0) { perror("epoll_create1"); return 1; }
    for (int i = 0; i < count; i++) {
        slot[fds[i]] = i;
        struct epoll_event event = {.events = EPOLLIN, .data.fd = fds[i]};
        if (epoll_ctl(poll, EPOLL_CTL_ADD, fds[i], &event) < 0) { perror("epoll_ctl"); return 1; }
    }
    for (int i = 0; i < count; i++) {
        if (write(fds[i], &keys[i], 1) != 1) perror("write");
        sent[i] = now_ms();
    }
    int answered = 0;
    double latest = 0, deadline = now_ms() + 5000;
    struct epoll_event events[256];
    static char buffer[65536];
    while (now_ms() < deadline) {
        if (answered == count && now_ms() - latest >= 20) break;
        int ready = epoll_wait(poll, events, 256, 5);
        if (ready < 0 && errno != EINTR) { perror("epoll_wait"); return 1; }
        double at = now_ms();
        for (int e = 0; e < ready; e++) {
            int i = slot[events[e].data.fd];
            ssize_t got = read(fds[i], buffer, sizeof buffer);
            if (got > 0) {
                if (first[i] == 0) { first[i] = at; answered++; }
                last[i] = at;
                latest = at;
            } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
                // The client is gone: its pty would stay readable and turn every wait into a spin.
                epoll_ctl(poll, EPOLL_CTL_DEL, fds[i], NULL);
            }
        }
    }
    for (int i = 0; i < count; i++) {
        if (first[i] == 0) printf("%d - -\n", fds[i]);
        else printf("%d %.3f %.3f\n", fds[i], first[i] - sent[i], last[i] - sent[i]);
    }
    return 0;
}
