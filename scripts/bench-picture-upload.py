#!/usr/bin/env python3
"""A merchant's picture uploads through `storefront api` on loopback, timed from the client: a new picture (each
upload a PNG made new by one changed byte after its end), the same picture again (held: no decode), a picture refused
from its header (a 50,000 x 50,000 PNG), and 8 MiB + 1 refused by its length; with a product list's request for scale.

    python3 scripts/bench-picture-upload.py STOREFRONT_BINARY [COUNT]

Writes nothing; prints a table (median and p90 ms over COUNT requests each, default 40). Needs ssh-keygen for the
merchant's admin key. Listens on 127.0.0.1 only.
"""
import http.client, os, re, statistics, struct, subprocess, sys, tempfile, time, zlib

BIN, COUNT = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 40
WORK = tempfile.mkdtemp()
HERE = os.path.dirname(os.path.abspath(__file__))
MUG = open(os.path.join(HERE, "..", "assets", "pictures", "mug-stdout.png"), "rb").read()


def png_header(width, height):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00")) + chunk(b"IEND", b""))


data = f"{WORK}/data"
subprocess.run([BIN, "headless", "--data-dir", data, "--keys", "q"], check=True, stdout=subprocess.DEVNULL)
subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", f"{WORK}/admin"], check=True)
os.rename(f"{WORK}/admin.pub", f"{WORK}/admin_keys")
fingerprint = subprocess.run(["ssh-keygen", "-lf", f"{WORK}/admin_keys"], check=True, capture_output=True, text=True).stdout.split()[1]
token = subprocess.run([BIN, "tokens", "create", "--name", "bench", "--customer", f"ssh:{fingerprint}", "--scope", "merchant",
                        "--admin-keys", f"{WORK}/admin_keys", "--data-dir", data], check=True, capture_output=True, text=True).stdout.strip()
log = open(f"{WORK}/api.log", "w")
api = subprocess.Popen([BIN, "api", "--listen", "127.0.0.1:0", "--admin-keys", f"{WORK}/admin_keys", "--data-dir", data,
                        "--rate-limit", "100000"], stdout=log, stderr=subprocess.STDOUT)
try:
    for _ in range(200):
        found = re.search(r"127\.0\.0\.1:(\d+)", open(f"{WORK}/api.log").read())
        if found:
            break
        time.sleep(0.05)
    port = int(found.group(1))
    connection = http.client.HTTPConnection("127.0.0.1", port)

    def timed(method, path, body=None, kind=None):
        headers = {"Authorization": f"Bearer {token}"}
        if kind:
            headers["Content-Type"] = kind
        started = time.perf_counter()
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        response.read()
        return (time.perf_counter() - started) * 1000, response.status

    rows = []
    cases = [
        ("product list (for scale)", lambda i: ("GET", "/v1/merchant/products", None, None), 200),
        ("new picture, 384x288 PNG", lambda i: ("POST", "/v1/merchant/pictures", MUG + i.to_bytes(4, "big"), "image/png"), 201),
        ("the same picture again", lambda i: ("POST", "/v1/merchant/pictures", MUG, "image/png"), 200),
        ("a 50000x50000 PNG, refused", lambda i: ("POST", "/v1/merchant/pictures", png_header(50_000, 50_000), "image/png"), 422),
    ]
    for name, make, expected in cases:
        times = []
        for i in range(COUNT):
            ms, status = timed(*make(i + 1))
            if status != expected:
                raise SystemExit(f"{name}: {status}, expected {expected}")
            times.append(ms)
        times.sort()
        rows.append((name, statistics.median(times), times[int(0.9 * (len(times) - 1))]))
    big = b"\x89PNG" + bytes(8 * 1024 * 1024 - 3)
    ms, status = timed("POST", "/v1/merchant/pictures", big, "image/png")
    if status != 413:
        raise SystemExit(f"8 MiB + 1: {status}")
    rows.append(("8 MiB + 1 byte, refused (once)", ms, ms))
finally:
    api.terminate()
    api.wait()
print(f"{'request':34} {'median ms':>10} {'p90 ms':>8}")
for name, median, p90 in rows:
    print(f"{name:34} {median:10.2f} {p90:8.2f}")
