// One message with at most one descriptor over a Unix socket (SCM_RIGHTS), for the session host and its server.
#define _GNU_SOURCE
#include "descriptor_passing.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int sf_send_with_descriptor(int socket, const void *bytes, size_t length, int descriptor) {
    struct iovec part = {(void *)bytes, length};
    union {
        char space[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr message = {0};
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    if (descriptor >= 0) {
        memset(&control, 0, sizeof control);
        message.msg_control = control.space;
        message.msg_controllen = sizeof control.space;
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(header), &descriptor, sizeof descriptor);
    }
    ssize_t sent;
    do sent = sendmsg(socket, &message, MSG_NOSIGNAL);
    while (sent < 0 && errno == EINTR);
    return sent < 0 ? -1 : 0;
}

/// Receives one message and at most one descriptor (-1 if none came). Returns the length, 0 at end of file, -1.
ssize_t sf_receive_with_descriptor(int socket, void *bytes, size_t capacity, int *descriptor, int *truncated) {
    struct iovec part = {bytes, capacity};
    union {
        char space[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr message = {0};
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    message.msg_control = control.space;
    message.msg_controllen = sizeof control.space;
    ssize_t received;
    do received = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
    while (received < 0 && errno == EINTR);
    *descriptor = -1;
    *truncated = (message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0;
    if (received <= 0) return received;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        int *received_descriptors = (int *)CMSG_DATA(header);
        for (size_t index = 0; index < count; index++) {
            if (*descriptor < 0) *descriptor = received_descriptors[index];
            else close(received_descriptors[index]);
        }
    }
    return received;
}

int sf_peer_user(int socket, unsigned int *user) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(socket, SOL_SOCKET, SO_PEERCRED, &credentials, &length) < 0) return -1;
    *user = credentials.uid;
    return 0;
}

int sf_accept_nonblocking(int socket) {
    return accept4(socket, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}
