/* Lists what a program runs, in the order it first runs it, for scripts/order-code: lld then lays the code
 * out in that order, so the code a session runs sits on few pages (docs/BENCHMARKS.md §14).
 *
 *     first-calls BREAKPOINTS OUT -- PROGRAM [ARGS...]
 *
 * BREAKPOINTS has a line "ADDRESS NAME" (hex, as `nm` prints addresses) per place to watch in PROGRAM: the
 * start of a function or of a code section, NAME being what to write when it runs (several places may share a
 * NAME, so OUT can repeat one). The program is started under ptrace with a breakpoint (int3) on each place. A
 * breakpoint that is hit is written to OUT, taken away, and the thread goes on: each place costs one stop,
 * whatever the number of its calls, so the program runs at nearly its own speed and can be driven like any
 * other (through tmux, over SSH). Threads are followed. OUT is complete when PROGRAM exits. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct { uint64_t address; char *name; unsigned char saved; int armed; int hit; } Breakpoint;

static Breakpoint *points;
static size_t count;

static int by_address(const void *a, const void *b) {
    uint64_t x = ((const Breakpoint *)a)->address, y = ((const Breakpoint *)b)->address;
    return x < y ? -1 : x > y;
}

static Breakpoint *find(uint64_t address) {
    size_t low = 0, high = count;
    while (low < high) {
        size_t middle = (low + high) / 2;
        if (points[middle].address < address) low = middle + 1; else high = middle;
    }
    return low < count && points[low].address == address ? &points[low] : NULL;
}

static void fail(const char *what) { perror(what); exit(70); }

static void read_symbols(const char *path) {
    FILE *file = fopen(path, "r");
    if (!file) fail(path);
    size_t capacity = 1 << 16;
    points = malloc(capacity * sizeof *points);
    char line[8192];
    while (fgets(line, sizeof line, file)) {
        char *name = strchr(line, ' ');
        if (!name) continue;
        *name++ = 0;
        name[strcspn(name, "\n")] = 0;
        if (count == capacity) points = realloc(points, (capacity *= 2) * sizeof *points);
        points[count++] = (Breakpoint){ strtoull(line, NULL, 16), strdup(name), 0, 0, 0 };
    }
    fclose(file);
    qsort(points, count, sizeof *points, by_address);
}

/* The difference between where PROGRAM's first segment was mapped and where its ELF header says it goes:
 * 0 for a fixed-address executable, the random base for a position-independent one. */
static uint64_t load_bias(pid_t pid, const char *program) {
    int fd = open(program, O_RDONLY);
    if (fd < 0) fail(program);
    Elf64_Ehdr header;
    if (pread(fd, &header, sizeof header, 0) != sizeof header) fail("ELF header");
    uint64_t first = UINT64_MAX;
    for (int i = 0; i < header.e_phnum; i++) {
        Elf64_Phdr segment;
        if (pread(fd, &segment, sizeof segment, header.e_phoff + (off_t)i * header.e_phentsize) != sizeof segment) fail("ELF segment");
        if (segment.p_type == PT_LOAD && segment.p_vaddr < first) first = segment.p_vaddr & ~(uint64_t)0xfff;
    }
    close(fd);
    char maps[64], line[4096], *real = realpath(program, NULL);
    snprintf(maps, sizeof maps, "/proc/%d/maps", pid);
    FILE *file = fopen(maps, "r");
    if (!file || !real) fail("maps");
    uint64_t start = 0;
    while (fgets(line, sizeof line, file)) {
        line[strcspn(line, "\n")] = 0;
        char *path = strchr(line, '/');
        if (path && strcmp(path, real) == 0) { start = strtoull(line, NULL, 16); break; }
    }
    fclose(file);
    if (!start) { fprintf(stderr, "first-calls: %s is not mapped in the child\n", real); exit(70); }
    return start - first;
}

int main(int argc, char **argv) {
    if (argc < 5 || strcmp(argv[3], "--") != 0) {
        fputs("usage: first-calls SYMBOLS OUT -- PROGRAM [ARGS...]\n", stderr);
        return 64;
    }
    read_symbols(argv[1]);
    FILE *out = fopen(argv[2], "w");
    if (!out) fail(argv[2]);
    pid_t child = fork();
    if (child == 0) {
        ptrace(PTRACE_TRACEME, 0, NULL, NULL);
        execvp(argv[4], &argv[4]);
        fail(argv[4]);
    }
    int status;
    if (waitpid(child, &status, 0) != child || !WIFSTOPPED(status)) fail("exec stop");
    ptrace(PTRACE_SETOPTIONS, child, NULL, (void *)(PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL));
    uint64_t bias = load_bias(child, argv[4]);
    char mem_path[64];
    snprintf(mem_path, sizeof mem_path, "/proc/%d/mem", child);
    int mem = open(mem_path, O_RDWR);
    if (mem < 0) fail(mem_path);
    unsigned char trap = 0xcc;
    for (size_t i = 0; i < count; i++) {
        Breakpoint *point = &points[i];
        point->address += bias;
        if (i > 0 && points[i - 1].address == point->address) continue;   // an alias: one breakpoint
        if (pread(mem, &point->saved, 1, (off_t)point->address) != 1) continue;
        if (pwrite(mem, &trap, 1, (off_t)point->address) == 1) point->armed = 1;
    }
    ptrace(PTRACE_CONT, child, NULL, NULL);
    size_t written = 0;
    for (;;) {
        pid_t thread = waitpid(-1, &status, __WALL);
        if (thread < 0) { if (errno == EINTR) continue; break; }
        if (WIFEXITED(status) || WIFSIGNALED(status)) { if (thread == child) break; continue; }
        if (!WIFSTOPPED(status)) continue;
        int signal = WSTOPSIG(status);
        if (status >> 16) signal = 0;                    // a clone event: the new thread is followed already
        else if (signal == SIGTRAP) {
            struct user_regs_struct registers;
            ptrace(PTRACE_GETREGS, thread, NULL, &registers);
            Breakpoint *point = find(registers.rip - 1);
            if (point) {
                // Several threads may reach a breakpoint before it is taken away; each goes back one byte.
                if (point->armed) {
                    pwrite(mem, &point->saved, 1, (off_t)point->address);
                    point->armed = 0;
                }
                if (!point->hit) {
                    for (Breakpoint *alias = point; alias < points + count && alias->address == point->address; alias++) {
                        fprintf(out, "%s\n", alias->name);
                        written++;
                    }
                    point->hit = 1;
                }
                registers.rip -= 1;
                ptrace(PTRACE_SETREGS, thread, NULL, &registers);
                signal = 0;
            }
        } else if (signal == SIGSTOP) signal = 0;        // a new thread's first stop
        ptrace(PTRACE_CONT, thread, NULL, (void *)(intptr_t)signal);
    }
    fclose(out);
    fprintf(stderr, "first-calls: %zu names written, %zu breakpoints\n", written, count);
    return 0;
}
