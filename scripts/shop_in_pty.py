"""A live `storefront run` at 80x24 in a pty, with pyte as its terminal: what the pty benchmarks share.

    from shop_in_pty import start_shop
    shop = start_shop(binary, database)   # database: a PostgreSQL URL, or None for SQLite in a fresh data directory
"""
import fcntl
import os
import pty
import signal
import struct
import tempfile
import termios

import pyte


class Shop:
    def __init__(self, pid, fd, screen, stream, home):
        self.pid, self.fd, self.screen, self.stream, self.home = pid, fd, screen, stream, home

    def text(self):
        return "\n".join(self.screen.display)


def start_shop(binary, database):
    """Starts the shop in a fresh data directory (its colours as a user's, `NO_COLOR` dropped, the mouse off)."""
    home = tempfile.mkdtemp()
    env = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8", LC_ALL="C.UTF-8",
               XDG_CONFIG_HOME=home + "/config", XDG_DATA_HOME=home + "/data")
    env.pop("NO_COLOR", None)
    if database:
        env["STOREFRONT_DATABASE_URL"] = database
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(binary, [binary, "run", "--data-dir", home + "/data", "--mouse", "off"], env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    os.kill(pid, signal.SIGWINCH)
    screen = pyte.Screen(80, 24)
    return Shop(pid, fd, screen, pyte.ByteStream(screen), home)
