#ifndef STOREFRONT_SQLITE_MEMORY_H
#define STOREFRONT_SQLITE_MEMORY_H

/// Makes each SQLite connection start small: no page-cache block allocated up front, and a small lookaside.
/// Call before any connection is opened (SQLite refuses configuration once initialised). Returns an SQLite code.
int sf_sqlite_use_little_memory(void);

#endif
