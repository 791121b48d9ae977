#!/usr/bin/env python3
"""What one more session keeps on a worker's heap, by the code that allocated it (docs/BENCHMARKS.md, "Sessions in
workers"): `storefront serve` at 64 sessions a worker with scripts/worker-heap/live-allocations.c preloaded, WARM
OpenSSH sessions opened first (the worker's own start: its storage, terminfo, logs), then COUNT more with the worker's
allocations logged until every first frame is up and the screens are quiet. Prints what those COUNT kept, a session's
share, by allocation site (its first frames, symbolized).

    scripts/worker-heap/worker-heap.py BIN [COUNT] [WARM] [DEPTH]     # defaults 8, 2, 5

Needs cc, llvm-symbolizer (or the toolchain's), openssh-client and python3; loopback only.
"""
import collections, os, re, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import importlib.util
spec = importlib.util.spec_from_file_location("sessions", os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench-ssh-sessions.py"))
sessions = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sessions)


def symbolize(pid, addresses):
    """Names for the addresses of process `pid`, by the object each falls in."""
    regions, bases = [], {}
    for line in open(f"/proc/{pid}/maps"):
        parts = line.split()
        if len(parts) < 6:
            continue
        start, end = (int(x, 16) for x in parts[0].split("-"))
        bases.setdefault(parts[5], start - int(parts[2], 16))
        if "x" in parts[1]:
            regions.append((start, end, parts[5]))
    by_object = collections.defaultdict(list)
    for address in addresses:
        for start, end, path in regions:
            if start <= address < end:
                by_object[path].append(address)
                break
    names = {}
    for path, found in by_object.items():
        query = "\n".join(hex(a - bases[path] - 1) for a in found)
        answer = subprocess.run(["llvm-symbolizer", "--obj=" + path, "--no-inlines", "--functions=linkage", "-C"],
                                input=query, capture_output=True, text=True).stdout.strip().split("\n\n")
        for address, lines in zip(found, answer):
            names[address] = lines.split("\n")[0]
    return names


ALLOCATOR = re.compile(r"^(swift_slowAlloc|swift_allocObject|_dispatch_calloc|\?\?)$")


def main(argv):
    if not argv:
        sys.exit(__doc__)
    binary, count = argv[0], int(argv[1]) if len(argv) > 1 else 8
    warm, depth = (int(argv[2]) if len(argv) > 2 else 2), (int(argv[3]) if len(argv) > 3 else 5)
    work = tempfile.mkdtemp()
    library = os.path.join(work, "live-allocations.so")
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", library, os.path.join(os.path.dirname(os.path.abspath(__file__)), "live-allocations.c"), "-ldl"], check=True)
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", os.path.join(work, "client")], check=True)
    env = dict(os.environ, LD_PRELOAD=library, LIVE_ALLOCATIONS_DIR=work)
    log = open(os.path.join(work, "serve.log"), "w+")
    server = subprocess.Popen([binary, "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", os.path.join(work, "data"),
                               "--sessions-per-worker", "64"], stdout=log, stderr=subprocess.STDOUT, env=env)
    opened = []
    try:
        port = None
        for _ in range(600):
            found = re.search(r"listening on 127\.0\.0\.1:(\d+)", open(log.name).read())
            if found:
                port = found.group(1)
                break
            time.sleep(0.1)
        if not port:
            sys.exit("worker-heap: the server never listened:\n" + open(log.name).read())
        ssh = ["ssh", "-tt", "-p", port, "-i", os.path.join(work, "client"), "-o", "StrictHostKeyChecking=no",
               "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "127.0.0.1"]

        def open_sessions(n):
            new = [sessions.Session(ssh) for _ in range(n)]
            opened.extend(new)
            if sessions.wait_first_frames(new, ["Storefront"], 60):
                sys.exit("worker-heap: a session drew no first frame within 60 s")
            sessions.drain(opened, quiet=0.5, limit=5)

        open_sessions(warm)
        worker = re.findall(r"session \d+ open: .*?, pid (\d+), .*in a worker", open(log.name).read())[-1]
        switch = os.path.join(work, f"on-{worker}")
        open(switch, "w").close()
        open_sessions(count)
        os.remove(switch)
        time.sleep(0.2)
        live = {}
        for line in open(os.path.join(work, f"log-{worker}")):
            parts = line.split()
            if len(parts) < 4:
                continue
            address = int(parts[1], 16)
            if parts[0] == "f":
                live.pop(address, None)
                continue
            if parts[0] == "r":
                live.pop(int(parts[3], 16), None)
            live[address] = (int(parts[2]), [int(f, 16) for f in parts[4:]])
        names = symbolize(worker, {f for _, frames in live.values() for f in frames})
        by_site, blocks = collections.Counter(), collections.Counter()
        for size, frames in live.values():
            named = [names.get(f, "??") for f in frames]
            while len(named) > 1 and ALLOCATOR.match(named[0]):
                named.pop(0)
            site = " < ".join(n[:90] for n in named[:depth])
            by_site[site] += size
            blocks[site] += 1
        total = sum(by_site.values())
        print(f"worker {worker}: {count} sessions kept {total / 1024:.0f} KiB of heap, {total / 1024 / count:.1f} KiB a session")
        print("KiB a session  blocks  where")
        for site, size in by_site.most_common(25):
            print(f"{size / 1024 / count:13.1f}  {blocks[site]:6}  {site}")
    finally:
        for s in opened:
            s.close()
        server.terminate()
        server.wait()
        subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main(sys.argv[1:])
