/* An LD_PRELOAD library for scripts/worker-heap: writes every malloc, calloc, realloc, aligned allocation and free of a
 * process, with the allocation's call stack, while a file `on-PID` exists in $LIVE_ALLOCATIONS_DIR (checked every 1,024
 * allocations), to `log-PID` there. What was allocated and not freed while the file existed is what the process kept.
 *
 * A line is "m ADDRESS SIZE 0 FRAME..." (an allocation), "r ADDRESS SIZE OLD FRAME..." (a realloc of OLD) or
 * "f ADDRESS 0 0" (a free), addresses in hex. Allocations made by the logging itself are not logged. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *(*real_malloc)(size_t);
static void (*real_free)(void *);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static __thread int inside;
static int log_file = -1;
static int logging;
static unsigned long allocations;
static pthread_mutex_t writing = PTHREAD_MUTEX_INITIALIZER;
/* What dlsym allocates before the real calloc is known: never freed. */
static char early[65536];
static size_t early_used;

static void *early_allocation(size_t size) {
    void *block = early + early_used;
    early_used += (size + 15) & ~(size_t)15;
    return early_used <= sizeof early ? block : NULL;
}

static void resolve(void) {
    if (real_malloc) return;
    inside = 1;
    real_calloc = dlsym(RTLD_NEXT, "calloc");
    real_malloc = dlsym(RTLD_NEXT, "malloc");
    real_free = dlsym(RTLD_NEXT, "free");
    real_realloc = dlsym(RTLD_NEXT, "realloc");
    real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
    inside = 0;
}

/* Every 1,024 allocations: whether the file that turns logging on exists. */
static void check(void) {
    if ((__atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED) & 1023) != 0 || inside) return;
    const char *directory = getenv("LIVE_ALLOCATIONS_DIR");
    if (!directory) return;
    inside = 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/on-%d", directory, getpid());
    int on = access(path, F_OK) == 0;
    if (on && log_file < 0) {
        snprintf(path, sizeof path, "%s/log-%d", directory, getpid());
        log_file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    }
    logging = on;
    inside = 0;
}

static void record(char kind, void *address, size_t size, void *old) {
    if (!logging || log_file < 0 || inside) return;
    inside = 1;
    void *frames[18];
    int count = kind == 'f' ? 0 : backtrace(frames, 18);
    char line[640];
    int length = snprintf(line, sizeof line, "%c %lx %zu %lx", kind, (unsigned long)address, size, (unsigned long)old);
    for (int i = 2; i < count && length < 600; i++) length += snprintf(line + length, sizeof line - length, " %lx", (unsigned long)frames[i]);
    line[length++] = '\n';
    pthread_mutex_lock(&writing);
    ssize_t written = write(log_file, line, (size_t)length);
    (void)written;
    pthread_mutex_unlock(&writing);
    inside = 0;
}

__attribute__((constructor)) static void start(void) {
    resolve();
    void *frames[2];
    inside = 1;
    backtrace(frames, 2);   // loads the unwinder now, not inside a logged allocation
    inside = 0;
}

void *malloc(size_t size) {
    if (!real_malloc) { if (inside) return early_allocation(size); resolve(); }
    check();
    void *block = real_malloc(size);
    record('m', block, size, NULL);
    return block;
}

void *calloc(size_t count, size_t size) {
    if (!real_calloc) { void *block = early_allocation(count * size); if (block) memset(block, 0, count * size); return block; }
    check();
    void *block = real_calloc(count, size);
    record('m', block, count * size, NULL);
    return block;
}

void free(void *block) {
    if (!block || ((char *)block >= early && (char *)block < early + sizeof early)) return;
    record('f', block, 0, NULL);
    real_free(block);
}

void *realloc(void *old, size_t size) {
    resolve();
    check();
    void *block = real_realloc(old, size);
    record('r', block, size, old);
    return block;
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    resolve();
    check();
    int error = real_posix_memalign(result, alignment, size);
    if (!error) record('m', *result, size, NULL);
    return error;
}

void *aligned_alloc(size_t alignment, size_t size) {
    resolve();
    check();
    void *block = real_aligned_alloc(alignment, size);
    record('m', block, size, NULL);
    return block;
}
