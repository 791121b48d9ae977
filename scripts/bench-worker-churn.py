#!/usr/bin/env python3
"""Memory after many sessions come and gone (docs/BENCHMARKS.md, "Sessions in workers").

Opens WAVES waves of WIDTH concurrent OpenSSH sessions to a running `storefront serve`; each session waits for the
shop's first frame, then quits with q. Before the first wave and after the last (once the server has settled), it
reads the PSS of every process below the server (the session host and its workers) and the server's own RSS.

    scripts/bench-worker-churn.py --server-pid PID [--waves 100] [--width 100] -- ssh -tt -p PORT ... 127.0.0.1
"""
import argparse, importlib.util, json, os, pty, select, signal, sys, time


# The /proc readings of the sessions harness, one copy of them.
_harness_spec = importlib.util.spec_from_file_location("bench_ssh_sessions", os.path.join(os.path.dirname(__file__), "bench-ssh-sessions.py"))
_harness = importlib.util.module_from_spec(_harness_spec)
_harness_spec.loader.exec_module(_harness)
pss_kib, descendants = _harness.pss_kib, _harness.descendants


def snapshot(server):
    below = descendants(server)
    with open(f"/proc/{server}/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS"))
    return {"processes": len(below), "pss_kib_below_server": sum(pss_kib(p) for p in below), "server_rss_kib": rss}


def settle(server, seconds=3.0):
    """Waits until the processes below the server have stayed the same for `seconds`."""
    last, since = None, time.monotonic()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        now = sorted(descendants(server))
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= seconds:
            return
        time.sleep(0.2)


def wave(cmd, width, marker=b"quit", timeout=60):
    sessions = []
    for _ in range(width):
        pid, fd = pty.fork()
        if pid == 0:
            os.execvp(cmd[0], cmd)
        sessions.append([pid, fd, b"", False])
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not all(s[3] for s in sessions):
        ready, _, _ = select.select([s[1] for s in sessions if not s[3]], [], [], 0.5)
        for s in sessions:
            if s[1] in ready:
                try:
                    s[2] = (s[2] + os.read(s[1], 65536))[-4096:]
                except OSError:
                    s[3] = True
                    continue
                if marker in s[2]:
                    s[3] = True
                    os.write(s[1], b"q")
    failed = 0
    for pid, fd, _, _ in sessions:
        try:
            os.waitpid(pid, 0) if time.monotonic() < deadline + 30 else os.kill(pid, signal.SIGKILL)
        except OSError:
            failed += 1
        os.close(fd)
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server-pid", type=int, required=True)
    ap.add_argument("--waves", type=int, default=100)
    ap.add_argument("--width", type=int, default=100)
    ap.add_argument("--jsonl")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.cmd[1:] if args.cmd and args.cmd[0] == "--" else args.cmd
    settle(args.server_pid)
    before = snapshot(args.server_pid)
    started = time.monotonic()
    failed = sum(wave(cmd, args.width) for _ in range(args.waves))
    settle(args.server_pid)
    after = snapshot(args.server_pid)
    row = {"sessions": args.waves * args.width, "failed": failed, "seconds": round(time.monotonic() - started),
           "before": before, "after": after,
           "pss_after_over_before": round(after["pss_kib_below_server"] / max(1, before["pss_kib_below_server"]), 3)}
    print(json.dumps(row), flush=True)
    if args.jsonl:
        with open(args.jsonl, "a") as f:
            f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
