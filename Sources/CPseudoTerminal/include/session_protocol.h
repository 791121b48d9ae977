#ifndef STOREFRONT_SESSION_PROTOCOL_H
#define STOREFRONT_SESSION_PROTOCOL_H

// The messages between a server and its session host: a request (the header, then the arguments and the environment
// as NUL-terminated strings, the terminal as SCM_RIGHTS), and the host's answers (a fork's, with the child's pidfd;
// a session's end).
#include <stdint.h>

// kind_worker: like a request, but the descriptor is a worker's socket to its server (descriptor 3 in the child), and
// the child gets no terminal. kind_resize and kind_signal go from a server to a worker only (`request` names the
// session, `argument_count` carries the signal).
enum { kind_request = 1, kind_started = 2, kind_ended = 3, kind_worker = 4, kind_resize = 5, kind_signal = 6 };

// The join socket (`serve --join-socket`): a joiner's join (a request with no arguments, its terminal beside it),
// window changes and hang-ups (`argument_count`, or the second word, the signal); the server's answers are three
// words (kind, then for an end how it ended and its code or signal) and any text after them.
enum {
    kind_join = 21, kind_join_window_changed = 22, kind_join_hang_up = 23,
    kind_join_started = 31, kind_join_own_process = 32, kind_join_refused = 33, kind_join_ended = 34
};
enum { join_end_unknown = 0, join_end_exited = 1, join_end_signalled = 2 };

struct request_header {
    uint32_t kind;
    uint32_t request;
    uint32_t argument_count;
    uint32_t environment_count;
};

struct host_reply {
    uint32_t kind;
    uint32_t request;
    int32_t pid;
    int32_t error;
    int32_t status;
};

/// The largest request: arguments and environment together.
#define request_capacity (256 * 1024)

#endif
