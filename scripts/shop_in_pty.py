"""A live `storefront run` at 80x24 in a pty, with pyte as its terminal: what the pty benchmarks share.

    from shop_in_pty import start_shop
    shop = start_shop(binary, database)   # database: a PostgreSQL URL, or None for SQLite in a fresh data directory
"""
import fcntl
import os
import pty
import select
import signal
import struct
import tempfile
import termios
import time

import pyte


class Shop:
    def __init__(self, pid, fd, screen, stream, home):
        self.pid, self.fd, self.screen, self.stream, self.home = pid, fd, screen, stream, home

    def text(self):
        return "\n".join(self.screen.display)

    def pump_until(self, predicate, limit=60.0, writing=b""):
        """Writes `writing` as the pty takes it and feeds the shop's output to the terminal until `predicate(text)`
        holds with everything written; returns the time it did. Ends the script with the screen after `limit` s."""
        deadline = time.monotonic() + limit
        pending = writing
        while time.monotonic() < deadline:
            if predicate(self.text()) and not pending:
                return time.monotonic()
            ready_read, ready_write, _ = select.select([self.fd], [self.fd] if pending else [], [], 0.005)
            if ready_write and pending:
                written = os.write(self.fd, pending[:4096])
                pending = pending[written:]
            if ready_read:
                try:
                    data = os.read(self.fd, 65536)
                except OSError:
                    break
                if not data:
                    break
                self.stream.feed(data)
        raise SystemExit(f"timed out; the screen was:\n{self.text()}")


def start_shop(binary, database, data=None, extra_env=None, size=(80, 24)):
    """Starts the shop in a fresh data directory, or `data` (its colours as a user's, `NO_COLOR` dropped, the mouse
    off), with `extra_env` added, at `size` (columns, rows)."""
    home = tempfile.mkdtemp()
    env = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8", LC_ALL="C.UTF-8",
               XDG_CONFIG_HOME=home + "/config", XDG_DATA_HOME=home + "/data")
    env.pop("NO_COLOR", None)
    env.update(extra_env or {})
    if database:
        env["STOREFRONT_DATABASE_URL"] = database
    columns, rows = size
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(binary, [binary, "run", "--data-dir", data or home + "/data", "--mouse", "off"], env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    os.kill(pid, signal.SIGWINCH)
    screen = pyte.Screen(columns, rows)
    return Shop(pid, fd, screen, pyte.ByteStream(screen), home)
