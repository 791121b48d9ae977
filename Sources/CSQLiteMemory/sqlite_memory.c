#include "sqlite_memory.h"

#include <sqlite3.h>

int sf_sqlite_use_little_memory(void) {
    // By default each connection allocates 20 pages of cache (about 87 KiB) at its first read and a 120 KiB
    // lookaside: a shop session holds two or three connections, and this was most of its memory. Pages are read
    // through the file's mapping instead (PRAGMA mmap_size), which every session shares.
    int cache = sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, 0);
    int lookaside = sqlite3_config(SQLITE_CONFIG_LOOKASIDE, 256, 32);
    return cache != SQLITE_OK ? cache : lookaside;
}
