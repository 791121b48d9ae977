#!/usr/bin/env python3
"""Holds the shop's tables locked for a while and times how the shop answers meanwhile.

    scripts/bench-stall.py BINARY --sqlite | --database URL [--hold SECONDS] [--keys N]

One run: a fresh data directory, `BINARY run` at 80x24 in a pty (pyte as the terminal), the first products
on screen. Then another session takes the lock:
- PostgreSQL: `psql` runs BEGIN; LOCK TABLE product, stock, cart_line IN ACCESS EXCLUSIVE MODE;
- SQLite: Python's sqlite3 runs BEGIN EXCLUSIVE on the shop's database file.
While the lock is held (default 10 s), printed per key:
- N keys (default 20) that need no new data, Down, Up, ? and Esc in turn: the time from the key's byte to the
  frame that answers it. Then the median and the worst.
- A search key that needs the catalog: the time until the screen shows the typed query, pending or answered.
- `a`: the time until the cart badge says 1 item.
Then the lock is released. Printed: the time until the shop shows no loading marker and no outage notice.
After `q`, whether the cart line is in the database. Needs pyte (pip install pyte) and, for PostgreSQL, psql.
"""
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from shop_in_pty import start_shop  # noqa: E402

binary = sys.argv[1]
database = sys.argv[sys.argv.index("--database") + 1] if "--database" in sys.argv else None
hold = float(sys.argv[sys.argv.index("--hold") + 1]) if "--hold" in sys.argv else 10.0
key_count = int(sys.argv[sys.argv.index("--keys") + 1]) if "--keys" in sys.argv else 20

shop = start_shop(binary, database)
pid, fd, screen, stream, home = shop.pid, shop.fd, shop.screen, shop.stream, shop.home


def text():
    return "\n".join(screen.display)


pump_until = shop.pump_until


def press(key, predicate):
    """Writes `key` and returns the milliseconds until the screen answers it."""
    started = time.monotonic()
    os.write(fd, key)
    return (pump_until(predicate) - started) * 1000


def arrow(letter):
    """An arrow key as the terminal sends it: ESC O x in application cursor mode (DECCKM, which the shop sets), else ESC [ x."""
    return ("\x1bO" if (1 << 5) in screen.mode else "\x1b[").encode() + letter


def title():
    return screen.display[1]


def quiet():
    return "loading" not in title() and "not reachable" not in text()


pump_until(lambda s: "q quit" in s and "loading" not in s)

# The other session takes the lock and says when it holds it.
if database:
    holder = subprocess.Popen(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", database], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    holder.stdin.write("BEGIN;\nLOCK TABLE product, stock, cart_line IN ACCESS EXCLUSIVE MODE;\n\\echo locked\n")
else:
    path = home + "/data/storefront.sqlite"
    holder = subprocess.Popen([sys.executable, "-c", f"""
import sqlite3, sys
db = sqlite3.connect({path!r}, isolation_level=None, timeout=30)
db.execute('BEGIN EXCLUSIVE')
print('locked', flush=True)
sys.stdin.readline()
db.execute('COMMIT')
"""], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
holder.stdin.flush()
if holder.stdout.readline().strip() != "locked":
    raise SystemExit("the lock was not taken")
locked_at = time.monotonic()
print(f"lock held by another session ({'PostgreSQL LOCK TABLE … ACCESS EXCLUSIVE' if database else 'SQLite BEGIN EXCLUSIVE'})", flush=True)

latencies = []
for index in range(key_count):
    step = index % 4
    if step == 0:
        latencies.append(press(arrow(b"B"), lambda s: title().rstrip().endswith("2 of 24") or "2 of 24" in title()))
    elif step == 1:
        latencies.append(press(arrow(b"A"), lambda s: "1 of 24" in title()))
    elif step == 2:
        latencies.append(press(b"?", lambda s: "Keys" in s))
    else:
        before = text()
        latencies.append(press(b"\x1b", lambda s, b=before: s != b))
print(f"{key_count} keys that need no data (Down, Up, ?, Esc): median {statistics.median(latencies):.1f} ms, worst {max(latencies):.1f} ms", flush=True)
print("  each: " + " ".join(f"{value:.1f}" for value in latencies), flush=True)

press(b"/", lambda s: "Search:" in title())
search = press(b"m", lambda s: "Search: m" in title())
print(f"a search key (needs the catalog): its query and pending state drawn after {search:.1f} ms ({'loading' if 'loading' in title() else 'answered'})", flush=True)
press(b"\x1b", lambda s: "Search:" not in title())
add = press(b"a", lambda s: "cart: 1 item" in s)
print(f"a (adds to the cart; its write waits for the lock): badge drawn after {add:.1f} ms", flush=True)

remaining = hold - (time.monotonic() - locked_at)
if remaining > 0:
    pump_until(lambda s: False if time.monotonic() - locked_at < hold else True, limit=remaining + 1)
released = time.monotonic()
if database:
    holder.stdin.write("COMMIT;\n")
holder.stdin.close()
holder.wait()
print(f"lock released after {released - locked_at:.1f} s", flush=True)
recovered = pump_until(lambda s: quiet(), limit=60)
print(f"recovered (no loading marker, no outage notice) {((recovered - released) * 1000):.0f} ms after the release", flush=True)
os.write(fd, b"q")
os.waitpid(pid, 0)
os.close(fd)

if database:
    lines = subprocess.run(["psql", "-X", "-tA", database, "-c", "SELECT count(*) FROM cart_line"], capture_output=True, text=True, check=True).stdout.strip()
else:
    lines = str(sqlite3.connect(home + "/data/storefront.sqlite").execute("SELECT count(*) FROM cart_line").fetchone()[0])
print(f"cart lines in the database after quitting: {lines}", flush=True)
shutil.rmtree(home, ignore_errors=True)
if lines == "0":
    raise SystemExit("the cart line added during the stall was lost")
