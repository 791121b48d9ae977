// The server's side of the session host: requests, answers, and the sessions' pidfds.
#define _GNU_SOURCE
#include "session_host.h"
#include "descriptor_passing.h"
#include "session_protocol.h"

#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <sys/pidfd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <unistd.h>

int sf_session_host_request(int control, uint32_t request, int terminal, const char *strings, size_t length,
                            uint32_t argument_count, uint32_t environment_count, int worker) {
    size_t total = sizeof(struct request_header) + length;
    if (total > request_capacity) {
        errno = E2BIG;
        return -1;
    }
    char *message = malloc(total);
    if (!message) return -1;
    struct request_header header = {worker ? kind_worker : kind_request, request, argument_count, environment_count};
    memcpy(message, &header, sizeof header);
    memcpy(message + sizeof header, strings, length);
    int result = sf_send_with_descriptor(control, message, total, terminal);
    int saved = errno;
    free(message);
    errno = saved;
    return result;
}

int sf_session_host_receive(int control, sf_host_message *message) {
    struct host_reply reply;
    int descriptor = -1, truncated = 0;
    ssize_t length = sf_receive_with_descriptor(control, &reply, sizeof reply, &descriptor, &truncated);
    if (length <= 0) return (int)length;
    if ((size_t)length != sizeof reply || truncated) {
        if (descriptor >= 0) close(descriptor);
        errno = EPROTO;
        return -1;
    }
    message->kind = reply.kind;
    message->request = reply.request;
    message->pid = reply.pid;
    message->error = reply.error;
    message->status = reply.status;
    message->pidfd = descriptor;
    return 1;
}

int sf_pidfd_signal(int pidfd, int signal) {
    return pidfd_send_signal(pidfd, signal, NULL, 0);
}

void sf_pidfd_wait(int pidfd) {
    struct pollfd watched = {pidfd, POLLIN, 0};
    while (poll(&watched, 1, -1) < 0 && errno == EINTR) {}
}

void sf_release_free_memory(void) {
    malloc_trim(0);
}

int sf_thread_count(void) {
    DIR *directory = opendir("/proc/self/task");
    if (!directory) return -1;
    int count = 0;
    for (struct dirent *entry; (entry = readdir(directory));) {
        if (entry->d_name[0] != '.') count++;
    }
    closedir(directory);
    return count;
}

int sf_process_ended_within(pid_t pid, int milliseconds) {
    int pidfd = pidfd_open(pid, 0);
    if (pidfd < 0) return errno == ESRCH ? 1 : -1;
    struct pollfd ready = {pidfd, POLLIN, 0};
    int answer;
    do answer = poll(&ready, 1, milliseconds);
    while (answer < 0 && errno == EINTR);
    close(pidfd);
    return answer < 0 ? -1 : answer;
}
