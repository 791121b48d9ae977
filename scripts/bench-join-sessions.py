#!/usr/bin/env python3
"""What a session behind the system's OpenSSH costs when it joins a server's workers (`sshd-session --join`), beside
the same session as a process of its own (no server at the socket), measured from outside on loopback.

Opens COUNT sessions of `storefront sshd-session --join SOCKET` each in its own pty at 80x24, as sshd's ForceCommand
runs it (a verified key in $SSH_USER_AUTH), waits for every first frame, and reads PSS (smaps_rollup): of the
waiting sshd-session processes, and of everything below the server (its host and workers). Then the same COUNT with
nothing listening at the socket: each sshd-session process is the shop. sshd's own processes are the same either way
and are left out.

    scripts/bench-join-sessions.py [COUNT]        # default 100; STOREFRONT_BIN=PATH for another build
"""
import importlib.util, json, os, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("bench", os.path.join(HERE, "bench-ssh-sessions.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    binary = os.environ.get("STOREFRONT_BIN") or subprocess.check_output([os.path.join(HERE, "release-build")], text=True).strip()
    work = tempfile.mkdtemp()
    data, socket = os.path.join(work, "data"), os.path.join(work, "join.sock")
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", os.path.join(work, "key")], check=True)
    with open(os.path.join(work, "key.pub")) as public, open(os.path.join(work, "auth"), "w") as auth:
        auth.write("publickey " + " ".join(public.read().split()[:2]) + "\n")
    os.environ.update(SSH_USER_AUTH=os.path.join(work, "auth"), SSH_CONNECTION="127.0.0.1 50000 127.0.0.1 22")
    joiner = [binary, "sshd-session", "--join", socket, "--data-dir", data]
    results = {"date": time.strftime("%Y-%m-%d"), "sessions": count}

    log = open(os.path.join(work, "serve.log"), "w")
    server = subprocess.Popen(
        [binary, "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", data, "--max-sessions", str(count + 10), "--join-socket", socket],
        stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(socket) and time.monotonic() < deadline:
            time.sleep(0.1)
        sessions = [bench.Session(joiner) for _ in range(count)]
        failed = bench.wait_first_frames(sessions, ["Storefront"], 120)
        joiners = [s.pid for s in sessions]
        below = bench.descendants(server.pid)
        results["joined"] = {
            "failed": len(failed),
            "joiner_pss_kib_each": round(sum(bench.pss_kib(p) for p in joiners) / count),
            "below_server_pss_kib_each": round(sum(bench.pss_kib(p) for p in below) / count),
            "processes_below_server": len(below),
        }
        results["joined"]["total_pss_kib_each"] = results["joined"]["joiner_pss_kib_each"] + results["joined"]["below_server_pss_kib_each"]
        for s in sessions:
            s.close()
    finally:
        server.terminate()
        server.wait(timeout=60)

    sessions = [bench.Session(joiner) for _ in range(count)]
    failed = bench.wait_first_frames(sessions, ["Storefront"], 120)
    alive = [s for s in sessions if os.path.exists(f"/proc/{s.pid}/smaps_rollup")]
    for s in sessions:
        if s not in alive:
            s.read()
            print("a session ended early:", bytes(s.output[-300:]), file=sys.stderr)
    results["own_process"] = {"failed": len(failed) + count - len(alive), "pss_kib_each": round(sum(bench.pss_kib(s.pid) for s in alive) / max(1, len(alive)))}
    for s in sessions:
        s.close()
    print(json.dumps(results))


if __name__ == "__main__":
    main()
