#!/usr/bin/env python3
"""What pictures cost over SSH, in one run: `storefront serve` with every session in one worker, SESSIONS shoppers
through the real OpenSSH client at 120x34, each opening the bundled catalog's 24 product pages in turn, twice; with
the pictures as a 256-colour mosaic (the client is a pty that answers no question, so the session draws text), with
kitty's protocol (the client says TERM=xterm-kitty: each image sent once by id, then placed), and with
STOREFRONT_PICTURES=art. Per mode: the bytes the client received for the first 24 pages and for the same 24 again (the
SSH session's payload, what the operator's link carries before SSH's own framing and compression), and the PSS of
every process below the server (the session host and the worker) over the sessions, read while all are open
(smaps_rollup).

    /usr/bin/env python3 scripts/bench-ssh-pictures.py STOREFRONT_BINARY [SESSIONS]   # default 8

Each page is waited for by its footer's words and then until the session writes nothing for 150 ms (the picture comes after
the page). Needs openssh-client. Listens on 127.0.0.1 only.
"""
import os
import pty
import re
import select
import struct
import subprocess
import sys
import tempfile
import termios
import fcntl
import time

BIN, SESSIONS = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 8
WORK = tempfile.mkdtemp()
subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", f"{WORK}/key"], check=True)


def pss_kib(pid):
    try:
        for line in open(f"/proc/{pid}/smaps_rollup"):
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def below(pid):
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    if int(open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()[1]) == parent:
                        found.append(int(entry))
                        todo.append(int(entry))
                except (OSError, IndexError, ValueError):
                    pass
    return found


class Shopper:
    def __init__(self, port, term):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.environ["TERM"] = term
            os.execvp("ssh", ["ssh", "-tt", "-p", str(port), "-i", f"{WORK}/key", "-F", "/dev/null", "-o", "StrictHostKeyChecking=no",
                              "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "127.0.0.1"])
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 34, 120, 0, 0))
        self.received = 0
        self.buffer = b""

    def read_until(self, needle, quiet=0.15, timeout=20):
        """Reads until `needle` has come (in what came since the last call), then until nothing comes for `quiet` s."""
        deadline, seen = time.monotonic() + timeout, needle is None
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.fd], [], [], quiet if seen else 0.5)
            if not ready:
                if seen:
                    return
                continue
            chunk = os.read(self.fd, 65536)
            self.received += len(chunk)
            self.buffer = (self.buffer + chunk)[-65536:]
            if not seen and needle in self.buffer:
                seen = True
        raise SystemExit(f"timed out waiting for {needle!r}")

    def send(self, keys, needle):
        self.buffer = b""
        os.write(self.fd, keys)
        self.read_until(needle)


def run(mode):
    env = dict(os.environ, XDG_CONFIG_HOME=f"{WORK}/config-{mode}", STOREFRONT_THEME="dark")
    env.pop("NO_COLOR", None)
    if mode == "art":
        env["STOREFRONT_PICTURES"] = "art"
    else:
        env.pop("STOREFRONT_PICTURES", None)
    log = open(f"{WORK}/serve-{mode}.log", "w")
    server = subprocess.Popen([BIN, "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", f"{WORK}/data-{mode}",
                               "--sessions-per-worker", str(max(SESSIONS, 2)), "--connections-per-minute", "1000",
                               "--guests-per-address", "1000"], stdout=log, stderr=subprocess.STDOUT, env=env)
    port = None
    for _ in range(600):
        time.sleep(0.05)
        found = re.search(r"listening on 127\.0\.0\.1:(\d+)", open(f"{WORK}/serve-{mode}.log").read())
        if found:
            port = int(found.group(1))
            break
    if port is None:
        raise SystemExit("serve did not listen: " + open(f"{WORK}/serve-{mode}.log").read())
    shoppers = []
    try:
        for _ in range(SESSIONS):
            shopper = Shopper(port, "xterm-kitty" if mode == "kitty" else "xterm-256color")
            shopper.read_until(b"Products")
            shoppers.append(shopper)
        rounds = []
        for _ in range(2):
            opened = [s.received for s in shoppers]
            for product in range(24):
                for shopper in shoppers:
                    # The footers tell the screens apart (the encoder writes only what changed, so the titles may not).
                    shopper.send(b"\r", b"buy now")
                    shopper.send(b"s", b"search")
                    shopper.send(b"\x1b[B" if product < 23 else b"\x1b[H", None)
            rounds.append(sum(s.received - o for s, o in zip(shoppers, opened)) / SESSIONS)
        processes = below(server.pid)
        pss = sum(pss_kib(p) for p in processes)
        for shopper in shoppers:
            os.write(shopper.fd, b"q")
        for shopper in shoppers:
            os.waitpid(shopper.pid, 0)
        said = re.findall(r"pictures (\w+)", open(f"{WORK}/data-{mode}/storefront.log").read())
        return {"mode": mode, "first": round(rounds[0]), "again": round(rounds[1]), "pss_kib_per_session": round(pss / SESSIONS),
                "said": sorted(set(said))}
    finally:
        server.terminate()
        server.wait()


rows = [run("mosaic"), run("kitty"), run("art")]
print(f"{SESSIONS} sessions in one worker, 120x34, 24 product pages each, twice (a page, back to the list, a move)")
print("| pictures | the session's log says | bytes a session received, first 24 pages | per page | the same 24 again | per page | PSS below the server per session (KiB) |")
print("|---|---|---|---|---|---|---|")
for row in rows:
    print(f"| {row['mode']} | {', '.join(row['said'])} | {row['first']} | {row['first'] / 24:.0f} | {row['again']} | {row['again'] / 24:.0f} | {row['pss_kib_per_session']} |")
