#ifndef STOREFRONT_SESSION_HOST_H
#define STOREFRONT_SESSION_HOST_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// What a forked session is to run: its arguments (without a program name), NULL-terminated, allocated in the child.
typedef struct {
    char **arguments;
    int count;
} sf_session_arguments;

/// Serves fork requests arriving on `control` (one end of a SOCK_SEQPACKET socketpair).
///
/// In the host it never returns: each request is forked, the child's pid answered with a pidfd, each exit reported,
/// and the host exits once `control` reaches end of file. In each forked child it returns 0, with the request's
/// terminal as the child's controlling terminal and descriptors 0-2, the request's environment in place of the host's,
/// every signal at its default and unblocked, and `arguments` filled. Returns -1 with errno if the host cannot start.
int sf_session_host_serve(int control, sf_session_arguments *arguments);

/// A message from the host to the server.
typedef struct {
    /// 2: a fork's answer (`request`, `pid` or `error`, `pidfd`); 3: a session ended (`pid`, `status` as from waitpid).
    uint32_t kind;
    uint32_t request;
    int32_t pid;
    int32_t error;
    int32_t status;
    /// The child's pidfd, received with a fork's answer (the receiver closes it); -1 otherwise.
    int pidfd;
} sf_host_message;

/// Sends the host a request to fork `arguments` and `environment` (NUL-separated, `argument_count` and
/// `environment_count` of each) on `terminal`; with `worker`, `terminal` is instead a socket that becomes the child's
/// descriptor 3, and the child has no terminal. Returns 0, or -1 with errno.
int sf_session_host_request(int control, uint32_t request, int terminal, const char *strings, size_t length,
                            uint32_t argument_count, uint32_t environment_count, int worker);

/// Blocks for the host's next message. Returns 1 with `message` filled, 0 at end of file, -1 with errno.
int sf_session_host_receive(int control, sf_host_message *message);

/// Sends `signal` to the process `pidfd` refers to. Returns 0, or -1 with errno (ESRCH once it has been reaped).
int sf_pidfd_signal(int pidfd, int signal);

/// Blocks until the process `pidfd` refers to has ended (its pidfd polls readable).
void sf_pidfd_wait(int pidfd);

/// Waits up to `milliseconds` for the process `pid` (any, not only a child) to end: 1 when it has, or had already
/// gone; 0 when it still runs; -1 with errno.
int sf_process_ended_within(pid_t pid, int milliseconds);

/// Returns the heap's free pages to the system (malloc_trim): for after a start whose temporary memory is done with.
void sf_release_free_memory(void);

/// The number of threads in this process, from /proc/self/task; -1 if it cannot be read.
int sf_thread_count(void);

#endif
