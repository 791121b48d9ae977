/* The least a terminal program can answer a key with, for scripts/bench-floor: raw mode, the
 * markers the harness waits for, and for each key one write: 206 bytes for an arrow (the minimal
 * stream of a move, docs/BENCHMARKS.md §11), a counter of 20-odd bytes for 'a'. What the harness measures
 * for it is the pty, the wake-ups and the harness itself: the part of every program's figure that
 * is not the program's own work. */
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

int main(void) {
    struct termios saved, raw;
    if (tcgetattr(0, &saved) != 0) { fputs("floor: stdin is not a terminal\n", stderr); return 69; }
    raw = saved;
    cfmakeraw(&raw);
    tcsetattr(0, TCSANOW, &raw);
    const char *start = "\033[?1049h\033[H\033[2JStorefront  q quit\r\n";
    write(1, start, strlen(start));
    char move[206];
    memset(move, 'x', sizeof move);
    memcpy(move, "\033[2;1H", 6);
    int items = 0;
    char c;
    while (read(0, &c, 1) == 1 && c != 'q') {
        if (c == 'a') {
            char counter[64];
            int n = snprintf(counter, sizeof counter, "\033[3;1Hcart: %d items", ++items);
            write(1, counter, (size_t)n);
        } else if (c != '\033' && c != 'O' && c != '[') {
            /* An arrow's last byte: one answer per key, as a program that decodes the sequence gives. */
            write(1, move, sizeof move);
        }
    }
    tcsetattr(0, TCSANOW, &saved);
    write(1, "\033[?1049l", 8);
    return 0;
}
