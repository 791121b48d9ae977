"""Times `POST /sign-in` on `storefront web` for emails that have an account and emails that do not, interleaved.

Usage: bench-code-timing.py BIN WORKDIR REQUESTS OUT.jsonl
Each request uses a new email (no per-email limit) from a new X-Forwarded-For address (no per-client limit), so every
answer files a code and mails it through a mail command that reads the message and drops it.
"""
import http.client
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import time

binary, work, requests, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
data = os.path.join(work, "data")
sink = os.path.join(work, "mail-sink")
with open(sink, "w") as f:
    f.write("#!/bin/sh\ncat > /dev/null\n")
os.chmod(sink, 0o755)
env = dict(os.environ, HOME=work, XDG_CONFIG_HOME=os.path.join(work, "config"))
server = subprocess.Popen(
    [binary, "web", "--listen", "127.0.0.1:0", "--data-dir", data, "--mail-command", sink, "--trust-forwarded-for",
     "--connections-per-minute", "100000"],
    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
port = None
for line in server.stdout:
    if "listening on" in line:
        port = int(line.split("listening on ")[1].split()[0].rsplit(":", 1)[1].rstrip(";"))
        break
if port is None:
    sys.exit("storefront web did not start")

# The known emails: accounts with the email verified, as a code sign-in leaves them.
database = sqlite3.connect(os.path.join(data, "storefront.sqlite"))
known = [f"known{i}@example.com" for i in range(requests)]
database.executemany(
    "INSERT INTO account (customer, email, email_verified_at, created_at) VALUES (?, ?, 1, 1)",
    [(f"acct_bench{i:08x}", email) for i, email in enumerate(known)])
database.commit()
unknown = [f"nobody{i}@example.com" for i in range(requests)]
origin = f"http://127.0.0.1:{port}"


def ask(email, client):
    body = "email=" + email.replace("@", "%40")
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    start = time.perf_counter()
    connection.request("POST", "/sign-in", body, {
        "Origin": origin, "Content-Type": "application/x-www-form-urlencoded", "X-Forwarded-For": client})
    answer = connection.getresponse()
    text = answer.read().decode()
    elapsed = time.perf_counter() - start
    connection.close()
    assert answer.status == 200 and "one is on its way" in text, (answer.status, text[:300])
    return elapsed, text


try:
    for i in range(20):  # warm up: the first answers pay for connections and pages
        ask(f"warm{i}@example.com", f"10.9.{i // 250}.{i % 250 + 1}")
    times = {"known": [], "unknown": []}
    pages = {}
    order = [("known", e) for e in known] + [("unknown", e) for e in unknown]
    random.Random(7).shuffle(order)
    for n, (kind, email) in enumerate(order):
        elapsed, text = ask(email, f"10.{n // 62500}.{n // 250 % 250}.{n % 250 + 1}")
        times[kind].append(elapsed * 1000)
        pages.setdefault(kind, text.replace(email, "EMAIL"))
finally:
    server.terminate()
    server.wait()

same_page = pages["known"] == pages["unknown"]
with open(out, "a") as f:
    for kind, values in times.items():
        values.sort()
        row = {"kind": kind, "n": len(values), "median_ms": statistics.median(values), "p10_ms": values[len(values) // 10],
               "p90_ms": values[len(values) * 9 // 10], "mean_ms": statistics.mean(values), "stdev_ms": statistics.stdev(values)}
        f.write(json.dumps(row) + "\n")
        print(f"{kind:8} n={row['n']:4}  median {row['median_ms']:.2f} ms  p10 {row['p10_ms']:.2f}  p90 {row['p90_ms']:.2f}  "
              f"mean {row['mean_ms']:.2f} ± {row['stdev_ms']:.2f}")
ratio = statistics.median(times["known"]) / statistics.median(times["unknown"])
print(f"median known / unknown = {ratio:.3f}; the two answers are {'the same page' if same_page else 'DIFFERENT pages'}")
