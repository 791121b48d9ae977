/* Lists what a program and the processes it forks run, in the order they first run it, for scripts/order-code:
 * lld then lays the code out in that order, so the code a worker runs sits on few pages (docs/BENCHMARKS.md,
 * "The code-order files").
 *
 *     first-calls BREAKPOINTS OUT -- PROGRAM [ARGS...]
 *
 * BREAKPOINTS has a line "ADDRESS NAME" (hex, as `nm` prints addresses) per place to watch in PROGRAM: the
 * start of a function or of a code section, NAME being what to write when it runs (several places may share a
 * NAME, so OUT can repeat one). The program is started under ptrace with a breakpoint (int3) on each place. A
 * breakpoint that is hit is written to OUT, taken away, and the thread goes on: each place costs one stop,
 * whatever the number of its calls, so the program runs at nearly its own speed and can be driven like any
 * other (through tmux, over SSH). Threads, forks and a fork's exec of PROGRAM again (a server's session host) are
 * followed: a fork shares the breakpoints its parent had left, each taken away in the process that hits it; an exec
 * of PROGRAM gets them all anew; a process that execs another program is let go. OUT is complete when PROGRAM
 * exits. */
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

typedef struct { uint64_t address; char *name; unsigned char saved; int hit; } Breakpoint;

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
        points[count++] = (Breakpoint){ strtoull(line, NULL, 16), strdup(name), 0, 0 };
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

/* Each thread's process, and each process's load bias, by id (Linux ids stay below 2^22). */
#define MAX_ID (1 << 22)
static int32_t *process_of;
static uint64_t *bias_of;
static char *program_path;

static int open_memory(pid_t process) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/mem", process);
    return open(path, O_RDWR);
}

/* Puts a breakpoint on every place not hit yet in `process`, a fresh image of PROGRAM, keeping the byte each covers. */
static void arm(pid_t process) {
    bias_of[process] = load_bias(process, program_path);
    int mem = open_memory(process);
    if (mem < 0) fail("mem");
    unsigned char trap = 0xcc;
    size_t armed = 0;
    for (size_t i = 0; i < count; i++) {
        if (i > 0 && points[i - 1].address == points[i].address) continue;   // an alias: one breakpoint
        off_t at = (off_t)(points[i].address + bias_of[process]);
        if (points[i].hit) continue;
        if (pread(mem, &points[i].saved, 1, at) != 1) continue;
        if (pwrite(mem, &trap, 1, at) == 1) armed++;
    }
    close(mem);
    fprintf(stderr, "first-calls: %zu breakpoints in process %d\n", armed, process);
}

/* The process `thread` belongs to, from the kernel: its first stop may come before the event that made it. */
static pid_t process_of_thread(pid_t thread) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", thread);
    FILE *file = fopen(path, "r");
    pid_t process = thread;
    if (!file) return process;
    while (fgets(line, sizeof line, file)) if (strncmp(line, "Tgid:", 5) == 0) { process = atoi(line + 5); break; }
    fclose(file);
    return process;
}

static int is_program(pid_t process) {
    char exe[64], real[4096];
    snprintf(exe, sizeof exe, "/proc/%d/exe", process);
    ssize_t length = readlink(exe, real, sizeof real - 1);
    if (length < 0) return 0;
    real[length] = 0;
    return strcmp(real, program_path) == 0;
}

int main(int argc, char **argv) {
    if (argc < 5 || strcmp(argv[3], "--") != 0) {
        fputs("usage: first-calls SYMBOLS OUT -- PROGRAM [ARGS...]\n", stderr);
        return 64;
    }
    read_symbols(argv[1]);
    FILE *out = fopen(argv[2], "w");
    if (!out) fail(argv[2]);
    process_of = calloc(MAX_ID, sizeof *process_of);
    bias_of = calloc(MAX_ID, sizeof *bias_of);
    pid_t child = fork();
    if (child == 0) {
        ptrace(PTRACE_TRACEME, 0, NULL, NULL);
        execvp(argv[4], &argv[4]);
        fail(argv[4]);
    }
    int status;
    if (waitpid(child, &status, 0) != child || !WIFSTOPPED(status)) fail("exec stop");
    program_path = realpath(argv[4], NULL);
    if (!program_path) {
        char exe[64];
        snprintf(exe, sizeof exe, "/proc/%d/exe", child);
        program_path = realpath(exe, NULL);
    }
    ptrace(PTRACE_SETOPTIONS, child, NULL,
           (void *)(PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL));
    process_of[child] = child;
    arm(child);
    ptrace(PTRACE_CONT, child, NULL, NULL);
    size_t written = 0;
    for (;;) {
        pid_t thread = waitpid(-1, &status, __WALL);
        if (thread < 0) { if (errno == EINTR) continue; break; }
        if (WIFEXITED(status) || WIFSIGNALED(status)) { if (thread == child) break; continue; }
        if (!WIFSTOPPED(status)) continue;
        int signal = WSTOPSIG(status);
        int event = status >> 16;
        if (process_of[thread] == 0) process_of[thread] = process_of_thread(thread);
        if (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK) {
            unsigned long born = 0;
            ptrace(PTRACE_GETEVENTMSG, thread, NULL, &born);
            pid_t process = process_of[thread];
            if (born < MAX_ID && event != PTRACE_EVENT_CLONE) bias_of[born] = bias_of[process];   // the same layout
            if (born < MAX_ID) process_of[born] = event == PTRACE_EVENT_CLONE ? process : (pid_t)born;
            signal = 0;
        } else if (event == PTRACE_EVENT_EXEC) {
            // The exec'ing thread is the process now, whatever thread it was.
            process_of[thread] = thread;
            if (is_program(thread)) arm(thread);
            else { ptrace(PTRACE_DETACH, thread, NULL, NULL); continue; }
            signal = 0;
        } else if (event) {
            signal = 0;
        } else if (signal == SIGTRAP) {
            pid_t process = process_of[thread];
            if (!bias_of[process]) bias_of[process] = load_bias(process, program_path);   // before its parent's fork event
            struct user_regs_struct registers;
            ptrace(PTRACE_GETREGS, thread, NULL, &registers);
            Breakpoint *point = find(registers.rip - 1 - bias_of[process]);
            if (point) {
                // Taken away in this process only: another that forked with it has its own copy of the page.
                int mem = open_memory(thread);
                unsigned char now = 0;
                off_t at = (off_t)(point->address + bias_of[process]);
                if (mem >= 0 && pread(mem, &now, 1, at) == 1 && now == 0xcc) pwrite(mem, &point->saved, 1, at);
                if (mem >= 0) close(mem);
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
        } else if (signal == SIGSTOP) signal = 0;        // a new thread's or process's first stop
        ptrace(PTRACE_CONT, thread, NULL, (void *)(intptr_t)signal);
    }
    fclose(out);
    fprintf(stderr, "first-calls: %zu names written, %zu places\n", written, count);
    return 0;
}
