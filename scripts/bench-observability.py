#!/usr/bin/env python3
"""What metrics and JSON logs cost: a key over SSH and an API request, on three `storefront up` processes at once.

    bench-observability.py ROUNDS OFF_SSH OFF_API METRICS_SSH METRICS_API JSON_SSH JSON_API TOKEN_FILE SSH_ARGS...

Each process runs the same build: `off` with `[metrics] enabled = off` and text logs, `metrics` with /metrics and the
sessions' relay, `json` with both and `--log-format json`. A round presses one key in each process's SSH session and
makes one GET /v1/products in each, in turn, so the machine's noise falls on all three alike. A key's time is from the
write to the first byte of its answer and to the answer's end (2 ms of quiet); a request's, from send to the whole
answer. Prints one JSON line per process and measurement, with the median and p90 in milliseconds and the ratio of
the median to `off`'s.
"""
import http.client, json, os, pty, select, sys, time, fcntl, struct, termios

rounds = int(sys.argv[1])
ports = {"off": (int(sys.argv[2]), int(sys.argv[3])), "metrics": (int(sys.argv[4]), int(sys.argv[5])), "json": (int(sys.argv[6]), int(sys.argv[7]))}
tokens = dict(line.split() for line in open(sys.argv[8]))
ssh_args = sys.argv[9:]


def session(port):
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    pid = os.fork()
    if pid == 0:
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        for fd in (0, 1, 2):
            os.dup2(slave, fd)
        os.execvp("ssh", ["ssh", "-tt", "-p", str(port)] + ssh_args)
    os.close(slave)
    read_until(master, b"Products", 30)
    drain(master, 0.2)
    return master


def read_until(fd, marker, limit):
    seen, deadline = b"", time.monotonic() + limit
    while marker not in seen:
        ready, _, _ = select.select([fd], [], [], max(0, deadline - time.monotonic()))
        if not ready:
            raise SystemExit(f"no {marker!r} within {limit} s: {seen[-300:]!r}")
        seen += os.read(fd, 65536)


def drain(fd, quiet):
    while select.select([fd], [], [], quiet)[0]:
        os.read(fd, 65536)


def key(fd, byte):
    start = time.perf_counter()
    os.write(fd, byte)
    select.select([fd], [], [], 5)
    first = time.perf_counter() - start
    os.read(fd, 65536)
    while select.select([fd], [], [], 0.002)[0]:
        os.read(fd, 65536)
    return first, time.perf_counter() - start - 0.002


def request(conn, token):
    start = time.perf_counter()
    conn.request("GET", "/v1/products?limit=20", headers={"Authorization": f"Bearer {token}"})
    response = conn.getresponse()
    response.read()
    assert response.status == 200, response.status
    return time.perf_counter() - start


sessions = {name: session(ssh) for name, (ssh, _) in ports.items()}
connections = {name: http.client.HTTPConnection("127.0.0.1", api) for name, (_, api) in ports.items()}
samples = {name: {"key_first_byte": [], "key_frame": [], "api_request": []} for name in ports}
for n in range(rounds):
    byte = b"j" if n % 2 == 0 else b"k"
    for name in ports:
        first, frame = key(sessions[name], byte)
        samples[name]["key_first_byte"].append(first)
        samples[name]["key_frame"].append(frame)
        samples[name]["api_request"].append(request(connections[name], tokens[name]))


def pct(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))] * 1000


for measure in ("key_first_byte", "key_frame", "api_request"):
    base = pct(samples["off"][measure], 0.5)
    for name in ports:
        values = samples[name][measure]
        print(json.dumps({"mode": name, "measure": measure, "n": len(values), "p50_ms": round(pct(values, 0.5), 3),
                          "p90_ms": round(pct(values, 0.9), 3), "ratio_to_off": round(pct(values, 0.5) / base, 3)}))
