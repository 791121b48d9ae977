#!/usr/bin/env python3
"""Many SSH sessions over several `storefront serve` front ends sharing one PostgreSQL, measured from outside.

Opens --per-host sessions on every port in --ports at once (interleaved), each an `ssh -tt` client in its
own pty at 80x24, and waits for every first frame. While it runs, a sampler counts the server's client
connections (pg_stat_activity, via psql) every 50 ms. Then two bursts, each a key sent to every
session at the same instant: `j` (moves inside the loaded window: no database work) and `a` (adds
to the cart: one write per session). For each phase it reports the peak connection count, first-byte
and redraw times, and any session whose screen says the store failed. Every wait is bounded.

    scripts/bench-pg-sessions.py --url URL --per-host 200 --ports 2201,2202,2203 -- ssh -tt -i DIR/KEY ... 127.0.0.1
    (the ssh command without -p, which the script adds; DIR/KEY-0, DIR/KEY-1, … are one client key per session)
"""
import argparse, json, os, subprocess, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import importlib.util
spec = importlib.util.spec_from_file_location("sessions", os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-ssh-sessions.py"))
sessions_module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sessions_module)
Session, wait_first_frames, drain, pct = sessions_module.Session, sessions_module.wait_first_frames, sessions_module.drain, sessions_module.pct

FAILURES = [b"not reachable", b"answered with an error", b"too many clients", b"could not"]


class ConnectionSampler(threading.Thread):
    """Counts client backends every 50 ms; `peak()` since the last `reset()`."""
    def __init__(self, url):
        super().__init__(daemon=True)
        self.url, self.lock, self.maximum, self.running, self.samples = url, threading.Lock(), 0, True, []
        self.psql = subprocess.Popen(["psql", url, "-At", "-q"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def run(self):
        while self.running:
            # This sampler's own connection is one of the backends; it is left out.
            self.psql.stdin.write("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid();\n")
            self.psql.stdin.flush()
            count = int(self.psql.stdout.readline())
            with self.lock:
                self.maximum = max(self.maximum, count)
                self.samples.append(count)
            time.sleep(0.05)

    def reset(self):
        with self.lock:
            peak, self.maximum, self.samples = self.maximum, 0, []
        return peak

    def now(self):
        with self.lock:
            return self.samples[-1] if self.samples else None


def burst(sessions, key, timeout=10.0, quiet=0.02):
    """Sends `key` to every session at once; returns (first byte ms, redrawn ms) per session."""
    drain(sessions)
    sent = {}
    for s in sessions:
        os.write(s.master, key)
        sent[s.master] = time.monotonic()
    by_fd = {s.master: s for s in sessions}
    first, last = {}, {}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = time.monotonic()
        if len(first) == len(by_fd) and all(now - last[fd] >= quiet for fd in by_fd):
            break
        ready, _, _ = sessions_module.select.select(list(by_fd), [], [], 0.005)
        now = time.monotonic()
        for fd in ready:
            if by_fd[fd].read() > 0:
                first.setdefault(fd, now)
                last[fd] = now
    return [((first[fd] - t0) * 1000 if fd in first else None, (last[fd] - t0) * 1000 if fd in last else None) for fd, t0 in sent.items()]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", required=True)
    ap.add_argument("--ports", required=True)
    ap.add_argument("--per-host", type=int, default=200)
    ap.add_argument("--label", default="")
    ap.add_argument("--jsonl")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.cmd[1:] if args.cmd and args.cmd[0] == "--" else args.cmd
    ports = [int(p) for p in args.ports.split(",")]
    sampler = ConnectionSampler(args.url)
    sampler.start()
    sessions = []
    row = {"label": args.label, "hosts": len(ports), "sessions_per_host": args.per_host}
    try:
        opened = time.monotonic()
        for index in range(args.per_host):
            for number, port in enumerate(ports):
                # A key per shopper: "KEY" in the command becomes KEY-<n>, so no two sessions share a cart.
                shopper = [part.replace("KEY", f"KEY-{index * len(ports) + number}") for part in cmd[1:]]
                sessions.append(Session(cmd[:1] + ["-p", str(port)] + shopper))
        missing = wait_first_frames(sessions, ["Storefront", "quit"], 120)
        row["open_all_s"] = round(time.monotonic() - opened, 1)
        row["first_frame_missing"] = len(missing)
        frames = [s.first_frame_ms for s in sessions if s.first_frame_ms]
        row["first_frame_ms_p50"], row["first_frame_ms_p95"] = pct(frames, 50), pct(frames, 95)
        drain(sessions, quiet=0.3, limit=10)
        row["peak_connections_opening"] = sampler.reset()
        time.sleep(3)  # past the sessions' 2 s idle timeout: what browsing shoppers hold
        drain(sessions, quiet=0.05, limit=2)
        sampler.reset()
        time.sleep(0.3)
        row["connections_idle"] = sampler.reset()
        for name, key in (("move", b"j"), ("add", b"a")):
            answers = burst(sessions, key)
            firsts = [f for f, _ in answers if f is not None]
            dones = [d for _, d in answers if d is not None]
            drain(sessions, quiet=0.3, limit=10)
            row[f"{name}_first_byte_ms_p50"], row[f"{name}_first_byte_ms_max"] = pct(firsts, 50), pct(firsts, 100)
            row[f"{name}_redrawn_ms_max"] = pct(dones, 100)
            row[f"{name}_unanswered"] = sum(1 for f, _ in answers if f is None)
            row[f"peak_connections_{name}"] = sampler.reset()
        failed = [s for s in sessions if any(f in s.output for f in FAILURES)]
        row["sessions_showing_a_failure"] = len(failed)
        # A session told the store is unreachable retries on its own: wait (bounded) for each to say it is back.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not all(b"The database is back" in s.output for s in failed):
            drain(failed, quiet=0.5, limit=2)
        row["sessions_back_within_60s"] = sum(1 for s in failed if b"The database is back" in s.output)
        print(json.dumps(row), flush=True)
        if args.jsonl:
            with open(args.jsonl, "a") as f:
                f.write(json.dumps(row) + "\n")
    finally:
        sampler.running = False
        for s in sessions:
            s.close()


if __name__ == "__main__":
    main()
