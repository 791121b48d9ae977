#!/usr/bin/env python3
"""Concurrent SSH sessions against `storefront serve`, measured from outside (loopback only).

For each count in --counts (cumulative), opens sessions up to that count, each an `ssh -tt` client in
its own pty at 80x24, and waits for every first frame. Then it reads:
  - memory: the server's VmRSS, and the session processes' RSS and PSS (PSS splits shared pages
    between the processes that share them, so it is the honest per-session cost); with a session host
    (`--session-start fork`), the host's PSS is added before dividing by the sessions;
  - keys one at a time: j (then k next round) to each session in turn, the time from the key to
    the first byte of the answer and to the end of the redraw (first 20 ms of quiet);
  - keys all at once: the same key to every session in one burst, the same two times for each.
It stops after the first count at which any session fails to draw its first frame within 60 s or
any key in either round takes longer than --limit-ms to start answering, and reports the largest
count that held. Every wait is bounded; every ssh client is killed at exit.

    scripts/bench-ssh-sessions.py --server-pid PID --counts 10,25,50 --jsonl out.jsonl -- ssh -tt -p PORT ... localhost
"""
import argparse, fcntl, json, os, pty, select, signal, struct, sys, termios, time


class Session:
    def __init__(self, cmd):
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        env = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8")
        self.started = time.monotonic()
        self.pid = os.fork()
        if self.pid == 0:
            os.setsid()
            fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
            for fd in (0, 1, 2):
                os.dup2(slave, fd)
            os.closerange(3, 4096)
            os.execvpe(cmd[0], cmd, env)
        os.close(slave)
        os.set_blocking(self.master, False)
        self.output = bytearray()
        self.first_frame_ms = None
        self.up = False

    def read(self):
        try:
            data = os.read(self.master, 65536)
        except (BlockingIOError, OSError):
            return 0
        self.output += data
        return len(data)

    def close(self):
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        os.close(self.master)


def wait_first_frames(sessions, markers, timeout):
    deadline = time.monotonic() + timeout
    waiting = {s.master: s for s in sessions if s.first_frame_ms is None}
    ready = Readiness(list(waiting.values()))
    try:
        while waiting and time.monotonic() < deadline:
            for fd in ready.read_ready(max(0.0, deadline - time.monotonic())):
                s = waiting.get(fd)
                if s and all(m.encode() in s.output for m in markers):
                    s.first_frame_ms = (time.monotonic() - s.started) * 1000
                    del waiting[fd]
                    ready.poll.unregister(fd)
    finally:
        ready.close()
    return list(waiting.values())


class Readiness:
    """The sessions' ptys in one epoll set, each registered once: a wait costs what is ready, not what is open, so the
    harness's own CPU (which competes with the server's on the same cores) stays small at 1,000 sessions, and no
    descriptor is past select's 1,024."""

    def __init__(self, sessions):
        self.by_fd = {s.master: s for s in sessions}
        self.poll = select.epoll(max(1, len(sessions)))
        for fd in self.by_fd:
            self.poll.register(fd, select.EPOLLIN)

    def read_ready(self, timeout):
        """Reads every session that is readable within `timeout` seconds: the descriptors that gave bytes."""
        got = []
        for fd, events in self.poll.poll(timeout):
            if self.by_fd[fd].read() > 0:
                got.append(fd)
            elif events & (select.EPOLLHUP | select.EPOLLERR):
                # The client is gone: its pty would stay readable and turn every wait into a spin.
                self.poll.unregister(fd)
        return got

    def close(self):
        self.poll.close()


def drain(sessions, quiet=0.02, limit=2.0):
    """Reads until every session has been quiet for `quiet` seconds (bounded by `limit`)."""
    ready = Readiness(sessions)
    try:
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if not ready.read_ready(quiet):
                return
    finally:
        ready.close()


_press_keys = None


def press_keys_helper():
    """scripts/press-keys.c, built once per run with the machine's cc."""
    global _press_keys
    if _press_keys is None:
        import atexit, shutil, subprocess, tempfile
        folder = tempfile.mkdtemp(prefix="press-keys-")
        atexit.register(shutil.rmtree, folder, True)
        _press_keys = os.path.join(folder, "press-keys")
        source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "press-keys.c")
        subprocess.run(["cc", "-O2", "-o", _press_keys, source], check=True)
    return _press_keys


def press(sessions, timeout=5.0):
    """Sends one key to each session at once; returns (first byte ms, redraw done ms) per session: done once every
    session has answered and all have been quiet for 20 ms. The keys are written and the answers read by
    scripts/press-keys.c, so this harness's own CPU takes little from the server's at 1,000 sessions."""
    import subprocess
    drain(sessions)
    lines = []
    for s in sessions:
        lines.append(f"{s.master} {ord('k' if s.up else 'j')}")
        s.up = not s.up
    answer = subprocess.run(
        [press_keys_helper()], input="\n".join(lines) + "\n", capture_output=True, text=True,
        pass_fds=[s.master for s in sessions], timeout=timeout + 10, check=True)
    result = []
    for line in answer.stdout.splitlines():
        _, first, last = line.split()
        result.append((None, None) if first == "-" else (float(first), float(last)))
    return result


def status_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except FileNotFoundError:
        return 0
    return 0


def pss_kib(pid):
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (FileNotFoundError, PermissionError):
        return 0
    return 0


def children(pid):
    kids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                kids.append(int(entry))
        except (FileNotFoundError, ProcessLookupError, IndexError):
            pass
    return kids


def cpu_ms(pids):
    """CPU time each process's threads have run, in ms, from /proc/PID/task/*/schedstat (nanoseconds, where
    /proc/PID/stat counts clock ticks): {pid: ms} for the processes still there."""
    found = {}
    for pid in pids:
        try:
            total = 0
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                    total += int(f.read().split()[0])
            found[pid] = total / 1e6
        except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
            pass
    return found


def burst_cpu(server_pid, sessions, body):
    """Runs `body` and returns its result with the CPU ms it took each side: the server, the processes below it (host,
    workers or session processes), the ssh clients, and this harness with its key presser. A process that ended
    meanwhile counts for nothing (a recycled worker must not make the sum go back)."""
    groups = [[server_pid], descendants(server_pid), [s.pid for s in sessions]]
    before = [cpu_ms(g) for g in groups] + [sum(os.times()[:4]) * 1000]
    result = body()
    after = [cpu_ms(g) for g in groups] + [sum(os.times()[:4]) * 1000]
    spent = [sum(a[p] - b[p] for p in b if p in a) for b, a in zip(before[:3], after[:3])] + [after[3] - before[3]]
    return result, {name: round(ms, 1) for name, ms in zip(["server", "sessions", "clients", "harness"], spent)}


def descendants(pid):
    """Every process under `pid`: with a session host, the sessions are its children, not the server's."""
    found, frontier = [], [pid]
    while frontier:
        kids = [k for p in frontier for k in children(p)]
        found += kids
        frontier = kids
    return found


def server_histogram(url):
    """The server's storefront_server_key_to_frame_seconds buckets (cumulative counts by upper bound), or None."""
    if not url:
        return None
    import urllib.request
    buckets = {}
    with urllib.request.urlopen(url, timeout=5) as answer:
        for line in answer.read().decode().splitlines():
            if line.startswith("storefront_server_key_to_frame_seconds_bucket"):
                bound = line.split('le="')[1].split('"')[0]
                key = float("inf") if bound == "+Inf" else float(bound)
                buckets[key] = buckets.get(key, 0) + float(line.rsplit(" ", 1)[1])
    return buckets


def histogram_delta(before, after):
    """The burst's keys by bucket: p50, p99 and the slowest as the upper bounds of their buckets, in ms."""
    if before is None or after is None:
        return None
    bounds = sorted(after)
    counts = [after[b] - before.get(b, 0) for b in bounds]
    total = counts[-1] if counts else 0
    if not total:
        return {"keys": 0}
    def bound_for(q):
        for b, c in zip(bounds, counts):
            if c >= q * total:
                return round(b * 1000, 2)
    slowest = next(b for b, c in zip(bounds, counts) if c >= total)
    return {"keys": int(total), "p50_ms_at_most": bound_for(0.5), "p99_ms_at_most": bound_for(0.99), "max_ms_at_most": round(slowest * 1000, 2)}


def idle_clients_burst(sessions, metrics_url, server_pid):
    """The burst again with every ssh client at SCHED_IDLE (the lowest class: it runs only when nothing else wants the
    CPU), then back at SCHED_OTHER: the server's figure with the load generator out of its way, and the clients'."""
    def schedule(policy):
        for s in sessions:
            try:
                os.sched_setscheduler(s.pid, policy, os.sched_param(0))
            except ProcessLookupError:
                pass
    schedule(os.SCHED_IDLE)
    try:
        figures = one_more_burst(sessions, metrics_url, server_pid)
    finally:
        schedule(os.SCHED_OTHER)
    del figures["presses"]
    return figures


def one_more_burst(sessions, metrics_url, server_pid):
    """A key in every session at once: the server's figure, the clients', and where the burst's CPU went (with the
    half second after it, for the last frames' writes), so one run shows how bursts vary. `presses` is each session's
    (first byte, redrawn) pair, taken out of what is recorded."""
    before = server_histogram(metrics_url)
    def pressed():
        answers = press(sessions)
        time.sleep(0.5)
        return answers
    burst, cpu = burst_cpu(server_pid, sessions, pressed)
    firsts = [f for f, _ in burst if f is not None]
    return {"server_key_to_frame": histogram_delta(before, server_histogram(metrics_url)), "first_byte_ms_p50": pct(firsts, 50),
            "first_byte_ms_max": pct(firsts, 100), "unanswered_keys": sum(1 for f, _ in burst if f is None), "burst_cpu_ms": cpu,
            "presses": burst}


def pct(values, p):
    values = sorted(values)
    if not values:
        return None
    return round(values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))], 2)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server-pid", type=int, required=True)
    ap.add_argument("--counts", default="10,25,50")
    ap.add_argument("--marker", action="append", default=None)
    ap.add_argument("--limit-ms", type=float, default=100.0)
    ap.add_argument("--label", default="storefront serve")
    ap.add_argument("--jsonl")
    ap.add_argument("--metrics-url", help="the server's /metrics: its own key-to-frame histogram is read around the burst")
    ap.add_argument("--peer", action="store_true", help="a server without session processes (Wish): PSS is the server's own")
    ap.add_argument(
        "--idle-clients-burst", action="store_true",
        help="after the burst, another with the ssh clients at SCHED_IDLE: their CPU no longer competes with the server's, as"
        " clients on other machines would not")
    ap.add_argument("--bursts", type=int, default=1, help="bursts of a key in every session at each count, of each kind (the"
                    " first as before, the rest in more_bursts and more_idle_clients_bursts): a burst of 1,000 varies from one to the next")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.cmd[1:] if args.cmd and args.cmd[0] == "--" else args.cmd
    markers = args.marker or ["Storefront", "quit"]
    sessions, held, rows = [], 0, []
    try:
        for count in [int(c) for c in args.counts.split(",")]:
            while len(sessions) < count:
                sessions.append(Session(cmd))
            missing = wait_first_frames(sessions, markers, 60)
            drain(sessions, quiet=0.2, limit=5)
            # The sessions, and a session host if there is one (a child of the server with children of its own):
            # its PSS is part of what the sessions cost, so it is spread over them.
            everyone = descendants(args.server_pid)
            hosts = [k for k in children(args.server_pid) if children(k)] if len(everyone) > len(children(args.server_pid)) else []
            kids = [k for k in everyone if k not in hosts]
            one = [press([s]) [0] for s in sessions]
            first = one_more_burst(sessions, args.metrics_url, args.server_pid)
            burst, server_side, first_cpu = first["presses"], first["server_key_to_frame"], first["burst_cpu_ms"]
            idle_clients = idle_clients_burst(sessions, args.metrics_url, args.server_pid) if args.idle_clients_burst else None
            more_bursts = [one_more_burst(sessions, args.metrics_url, args.server_pid) for _ in range(args.bursts - 1)]
            more_idle = [idle_clients_burst(sessions, args.metrics_url, args.server_pid) for _ in range(args.bursts - 1)] if args.idle_clients_burst else []
            firsts = [f for f, _ in one if f is not None]
            dones = [d for _, d in one if d is not None]
            bfirsts = [f for f, _ in burst if f is not None]
            bdones = [d for _, d in burst if d is not None]
            row = {
                "label": args.label, "sessions": count, "first_frame_missing": len(missing),
                "first_frame_ms_p50": pct([s.first_frame_ms for s in sessions if s.first_frame_ms], 50),
                "first_frame_ms_p95": pct([s.first_frame_ms for s in sessions if s.first_frame_ms], 95),
                "server_rss_kib": status_kib(args.server_pid, "VmRSS"),
                "session_processes": len(kids),
                "session_rss_kib_avg": round(sum(status_kib(k, "VmRSS") for k in kids) / max(1, len(kids))),
                "session_pss_kib_avg": round(sum(pss_kib(k) for k in everyone) / max(1, len(kids))),
                # What one session costs whatever holds it: every process below the server (host, workers or session
                # processes), or for a peer without them the server itself, over the sessions open.
                "pss_kib_per_session": round((pss_kib(args.server_pid) if args.peer else sum(pss_kib(k) for k in everyone)) / count),
                "server_pss_kib": pss_kib(args.server_pid),
                "server_key_to_frame": server_side,
                "host_pss_kib": sum(pss_kib(k) for k in hosts),
                "key_one_at_a_time_first_byte_ms_p50": pct(firsts, 50), "key_one_at_a_time_first_byte_ms_max": pct(firsts, 100),
                "key_one_at_a_time_redrawn_ms_p95": pct(dones, 95),
                "key_all_at_once_first_byte_ms_p50": pct(bfirsts, 50), "key_all_at_once_first_byte_ms_max": pct(bfirsts, 100),
                "key_all_at_once_redrawn_ms_max": pct(bdones, 100),
                "unanswered_keys": sum(1 for f, _ in one + burst if f is None),
                "burst_cpu_ms": first_cpu,
                "idle_clients_burst": idle_clients,
                "more_bursts": [{k: v for k, v in b.items() if k != "presses"} for b in more_bursts],
                "more_idle_clients_bursts": more_idle,
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
            if args.jsonl:
                with open(args.jsonl, "a") as f:
                    f.write(json.dumps(row) + "\n")
            worst = max([f for f in firsts + bfirsts] or [float("inf")])
            if missing or row["unanswered_keys"] or worst > args.limit_ms:
                break
            held = count
    finally:
        for s in sessions:
            s.close()
    print(f"held {held} sessions with every key answered within {args.limit_ms:.0f} ms", file=sys.stderr)


if __name__ == "__main__":
    main()
