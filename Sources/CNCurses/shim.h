// The one door to C: ncursesw, terminfo and the few POSIX calls the terminal front needs.
// term.h defines macros named like capabilities (lines, columns), so parameter names avoid them.
// Macros and C globals do not import into Swift 6 cleanly, so they are wrapped here.
#ifndef STOREFRONT_CNCURSES_SHIM_H
#define STOREFRONT_CNCURSES_SHIM_H

#define NCURSES_WIDECHAR 1
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>
#include <ncursesw/ncurses.h>
#include <ncursesw/term.h>

static inline WINDOW *sf_stdscr(void) { return stdscr; }
/// Columns the C library (and so curses) gives a character: -1 for one its Unicode data does not know.
static inline int sf_wcwidth(wchar_t character) { return wcwidth(character); }
static inline int sf_colors(void) { return COLORS; }
static inline attr_t sf_a_bold(void) { return A_BOLD; }
static inline attr_t sf_a_dim(void) { return A_DIM; }
static inline attr_t sf_a_reverse(void) { return A_REVERSE; }
static inline attr_t sf_a_underline(void) { return A_UNDERLINE; }
static inline attr_t sf_a_normal(void) { return A_NORMAL; }
static inline int sf_key_code_yes(void) { return KEY_CODE_YES; }
static inline int sf_err(void) { return ERR; }

/// Turns mouse reporting on (left presses and the wheel) or off; ncurses asks the terminal for
/// SGR reports (1006) where terminfo says it has them (XM), so wide terminals work. No click
/// interval: a press is reported at once. Returns 1 when the terminal reports the mouse at all.
static inline int sf_mouse(int on) {
    mmask_t wanted = 0;
    if (on) {
        wanted = BUTTON1_PRESSED | BUTTON4_PRESSED;
#ifdef BUTTON5_PRESSED
        wanted |= BUTTON5_PRESSED;
#endif
    }
    mouseinterval(0);
    return mousemask(wanted, NULL) != 0 ? 1 : 0;
}

/// Reads the mouse event behind KEY_MOUSE: 1 a left press, 4 the wheel up, 5 the wheel down,
/// 0 anything else; -1 when there was none to read.
static inline int sf_read_mouse(int *out_column, int *out_row) {
    MEVENT event;
    if (getmouse(&event) != OK) return -1;
    *out_column = event.x;
    *out_row = event.y;
    if (event.bstate & BUTTON1_PRESSED) return 1;
    if (event.bstate & BUTTON4_PRESSED) return 4;
#ifdef BUTTON5_PRESSED
    if (event.bstate & BUTTON5_PRESSED) return 5;
#endif
    return 0;
}

/// Starts curses on the process's own stdin and stdout; NULL when the terminal cannot be used.
static inline SCREEN *sf_newterm(void) { return newterm(NULL, stdout, stdin); }

/// Starts curses for terminal type `term` writing to the file descriptor `output_fd`, reading nothing:
/// a screen for benchmarks, sized by LINES and COLUMNS. NULL when it cannot start.
static inline SCREEN *sf_newterm_offscreen(const char *term, int output_fd) {
    FILE *output = fdopen(output_fd, "w");
    FILE *input = fopen("/dev/null", "r");
    if (output == NULL || input == NULL) return NULL;
    return newterm(term, output, input);
}

/// True when the locale's character set is UTF-8.
static inline int sf_locale_is_utf8(void) {
    const char *codeset = nl_langinfo(CODESET);
    return codeset != NULL && (strcmp(codeset, "UTF-8") == 0 || strcmp(codeset, "utf8") == 0);
}

/// The loaded terminal's string capability `name`; NULL when absent or not a string capability.
static inline const char *sf_tigetstr(const char *name) {
    char *value = tigetstr(name);
    return (value == NULL || value == (char *)-1) ? NULL : value;
}

/// The loaded terminal's boolean capability `name`: 1 when present, 0 otherwise.
static inline int sf_tigetflag(const char *name) { return tigetflag(name) == 1 ? 1 : 0; }

/// `capability` with its parameters filled in (`tiparm`, which Swift cannot call: it is variadic).
static inline const char *sf_tiparm(const char *capability, int first, int second) {
    return tiparm(capability, first, second);
}

/// Loads terminfo for `term`: 1 when usable with cursor addressing, 0 when it cannot move the cursor,
/// -1 when the terminal type is unknown. Leaves no terminal loaded.
static inline int sf_check_terminal(const char *term) {
    int status = 0;
    if (setupterm(term, 1, &status) != OK) return -1;
    int can_address = sf_tigetstr("cup") != NULL;
    del_curterm(cur_term);
    return can_address ? 1 : 0;
}

/// Loads terminfo for `term` as the current terminal without a screen, keeping the one loaded before in `previous`:
/// 1 when loaded (put it back with `sf_unload_terminal`), -1 when the terminal type is unknown.
static inline int sf_load_terminal(const char *term, TERMINAL **previous) {
    *previous = cur_term;
    int status = 0;
    if (setupterm(term, -1, &status) != OK) {
        set_curterm(*previous);
        return -1;
    }
    return 1;
}

/// Frees the terminal `sf_load_terminal` loaded and makes `previous` current again.
static inline void sf_unload_terminal(TERMINAL *previous) {
    TERMINAL *loaded = set_curterm(previous);
    if (loaded != NULL && loaded != previous) del_curterm(loaded);
}

/// The loaded terminal's numeric capability `name`; -1 when absent.
static inline int sf_tigetnum(const char *name) {
    int value = tigetnum(name);
    return value < 0 ? -1 : value;
}

/// Reads the window size of a terminal file descriptor; returns 0 on success.
static inline int sf_window_size(int fd, int *out_rows, int *out_columns) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0) return -1;
    *out_rows = size.ws_row;
    *out_columns = size.ws_col;
    return 0;
}

/// The window's size in pixels, where the terminal tells it (xterm, kitty, WezTerm, and SSH clients that pass it on).
static inline int sf_window_pixels(int fd, int *out_width, int *out_height) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0) return -1;
    *out_width = size.ws_xpixel;
    *out_height = size.ws_ypixel;
    return 0;
}

/// Writes one cell: `text` is a NUL-terminated wide string of one grapheme.
static inline int sf_put_cell(WINDOW *window, int at_row, int at_column, const wchar_t *text, attr_t attributes, short pair) {
    cchar_t cell;
    if (setcchar(&cell, text, attributes, pair, NULL) == ERR) return ERR;
    return mvwadd_wch(window, at_row, at_column, &cell);
}

/// Writes one cell holding a single scalar: the common case, without building a string.
static inline int sf_put_scalar(WINDOW *window, int at_row, int at_column, wchar_t scalar, attr_t attributes, short pair) {
    wchar_t text[2] = { scalar, 0 };
    cchar_t cell;
    if (setcchar(&cell, text, attributes, pair, NULL) == ERR) return ERR;
    return mvwadd_wch(window, at_row, at_column, &cell);
}

// State shared by the signal handlers lives in function-local statics: Swift's importer emits
// inline functions with their statics, but not file-scope static variables.

// ---- Signals: handlers only write the signal number to a pipe the main loop watches. ----

static inline int *sf_signal_pipe(void) { static int write_end = -1; return &write_end; }

static inline void sf_forward_signal(int signal_number) {
    int saved = errno;
    unsigned char byte = (unsigned char)signal_number;
    int write_end = *sf_signal_pipe();
    if (write_end >= 0) { ssize_t ignored = write(write_end, &byte, 1); (void)ignored; }
    errno = saved;
}

/// Routes the given signal to `write_end` as one byte per delivery.
static inline int sf_forward_signal_to_pipe(int signal_number, int write_end) {
    *sf_signal_pipe() = write_end;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = sf_forward_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return sigaction(signal_number, &action, NULL);
}

// ---- Crash restore: on a trap or fault, put the terminal back before dying. ----

struct sf_crash_state {
    char sequence[128];
    size_t length;
    struct termios modes;
    int modes_valid;
    int fd;
};

static inline struct sf_crash_state *sf_crash(void) { static struct sf_crash_state state; return &state; }

static inline void sf_crash_restore(int signal_number) {
    struct sf_crash_state *state = sf_crash();
    if (state->length > 0) { ssize_t ignored = write(state->fd, state->sequence, state->length); (void)ignored; }
    if (state->modes_valid) tcsetattr(state->fd, TCSANOW, &state->modes);
    signal(signal_number, SIG_DFL);
    raise(signal_number);
}

/// Saves the terminal's modes now and, on SIGILL/SIGTRAP/SIGSEGV/SIGBUS/SIGABRT/SIGFPE,
/// writes `sequence` (leave alternate screen, show cursor, reset attributes) and restores them.
static inline void sf_install_crash_restore(int fd, const char *sequence) {
    struct sf_crash_state *state = sf_crash();
    state->fd = fd;
    size_t length = strlen(sequence);
    if (length >= sizeof state->sequence) length = sizeof state->sequence - 1;
    memcpy(state->sequence, sequence, length);
    state->length = length;
    state->modes_valid = tcgetattr(fd, &state->modes) == 0;
    int signals[] = { SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT, SIGFPE };
    for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = sf_crash_restore;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_RESETHAND;
        sigaction(signals[i], &action, NULL);
    }
}

/// A worker's one set of its sessions' descriptors to wait on (`DescriptorKeys`), close-on-exec; -1 on failure.
static inline int sf_keys_poll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }
/// Adds `fd`, waited on for reading (level-triggered) and told by `key`; 0, or -1 with errno.
static inline int sf_keys_poll_add(int poll, int fd, unsigned long long key) {
    struct epoll_event event = {.events = EPOLLIN, .data.u64 = key};
    return epoll_ctl(poll, EPOLL_CTL_ADD, fd, &event);
}
static inline int sf_keys_poll_remove(int poll, int fd) { return epoll_ctl(poll, EPOLL_CTL_DEL, fd, NULL); }
/// Waits until descriptors are ready: fills each one's key, and 1 in `hung_up` where its other side closed; the count
/// (at most `capacity`, itself at most 256), or -1 with errno.
static inline int sf_keys_poll_wait(int poll, unsigned long long *keys, int *hung_up, int capacity) {
    struct epoll_event events[256];
    int ready = epoll_wait(poll, events, capacity < 256 ? capacity : 256, -1);
    for (int index = 0; index < ready; index++) {
        keys[index] = events[index].data.u64;
        hung_up[index] = (events[index].events & (EPOLLHUP | EPOLLERR)) != 0;
    }
    return ready;
}

/// libdispatch's main queue and `dispatch_sync_f`, declared here: its own header needs blocks and the toolchain's
/// include path. The function form runs `work(context)` with no block made and copied for it.
struct dispatch_queue_static_s;
extern struct dispatch_queue_static_s _dispatch_main_q;
extern void dispatch_sync_f(void *queue, void *context, void (*work)(void *));
/// Runs `work(context)` on the main queue and returns after it: on the calling thread while the queue is idle.
static inline void sf_sync_on_main_queue(void *context, void (*work)(void *)) { dispatch_sync_f(&_dispatch_main_q, context, work); }

/// Names the calling thread (at most 15 bytes are kept), as `top -H`, `ps -L` and perf show it.
static inline void sf_name_this_thread(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }

#endif
