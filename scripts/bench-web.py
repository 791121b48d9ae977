#!/usr/bin/env python3
"""Browser front beside SSH, in one run: time to the first frame and one key's round trip.

  browser: `storefront web` in headless Chromium (Selenium). First frame: from asking for the page to the shop's
           product list on the page's terminal (the page, its scripts, the WebSocket, the session's start, the
           frame drawn by xterm.js). Key: Down pressed in the page to the selection drawn one row lower.
  ssh:     `storefront serve` through the OpenSSH client in a pty. First frame: from starting ssh (the handshake
           included) to the product list in its output. Key: Down written to ssh to the answer's first byte back.

Reading the page costs the browser figures a poll of the terminal (every 1 ms, each read a few ms); the SSH figures
read bytes as they come. Usage: bench-web.py BIN RUNS KEYS OUT.jsonl
"""
import json, os, pty, re, select, signal, socket, statistics, subprocess, sys, tempfile, time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

BIN, RUNS, KEYS, OUT = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
WORK = tempfile.mkdtemp()
ROWS = """const t = window.storefront && window.storefront.terminal; if (!t) return "";
const b = t.buffer.active, r = []; for (let y = 0; y < t.rows; y++) { const l = b.getLine(b.viewportY + y); r.push(l ? l.translateToString(true) : ""); }
return r.join("\\n");"""


def start(args, pattern):
    env = dict(os.environ, XDG_CONFIG_HOME=f"{WORK}/config", HOME=WORK, STOREFRONT_THEME="dark")
    proc = subprocess.Popen([BIN] + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
    for line in proc.stdout:
        m = re.search(pattern, line)
        if m:
            return proc, int(m.group(1))
    raise SystemExit(f"{args[0]} did not start")


def summary(values):
    values = sorted(values)
    return {"median_ms": round(statistics.median(values), 2), "p90_ms": round(values[int(0.9 * (len(values) - 1))], 2),
            "min_ms": round(values[0], 2), "n": len(values)}


def browser_figures(port):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1000,640"]:
        options.add_argument(a)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    first, keys = [], []
    try:
        for _ in range(RUNS):
            started = time.monotonic()
            driver.get(f"http://127.0.0.1:{port}/")
            WebDriverWait(driver, 20, poll_frequency=0.001).until(lambda d: "Products" in d.execute_script(ROWS))
            first.append((time.monotonic() - started) * 1000)
            target = driver.find_element(By.CSS_SELECTOR, ".xterm-helper-textarea")
            for k in range(KEYS):
                # The selection marker on row k+3 of the list after k+1 presses.
                started = time.monotonic()
                target.send_keys(Keys.ARROW_DOWN)
                WebDriverWait(driver, 10, poll_frequency=0.001).until(
                    lambda d: d.execute_script(ROWS).split("\n")[3 + k].lstrip().startswith("\u203a"))
                keys.append((time.monotonic() - started) * 1000)
            driver.get("about:blank")
    finally:
        driver.quit()
    return first, keys


def read_until(fd, predicate, timeout=20):
    data = b""
    deadline = time.monotonic() + timeout
    while not predicate(data):
        left = deadline - time.monotonic()
        if left <= 0:
            raise SystemExit("ssh: timed out")
        r, _, _ = select.select([fd], [], [], left)
        if r:
            data += os.read(fd, 65536)
    return data


def ssh_figures(port):
    key = f"{WORK}/client"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key], check=True)
    first, keys = [], []
    for _ in range(RUNS):
        started = time.monotonic()
        pid, fd = pty.fork()
        if pid == 0:
            os.environ["TERM"] = "xterm-256color"
            os.execvp("ssh", ["ssh", "-tt", "-p", str(port), "-i", key, "-o", "StrictHostKeyChecking=no",
                              "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "127.0.0.1"])
        import fcntl, struct, termios
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))
        read_until(fd, lambda d: b"Products" in d and b"quit" in d)
        first.append((time.monotonic() - started) * 1000)
        for _ in range(KEYS):
            started = time.monotonic()
            os.write(fd, b"\x1b[B")
            read_until(fd, lambda d: len(d) > 0)
            keys.append((time.monotonic() - started) * 1000)
            # Let the rest of the frame arrive before the next key.
            while select.select([fd], [], [], 0.05)[0]:
                os.read(fd, 65536)
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
        os.close(fd)
    return first, keys


web, web_port = start(["web", "--listen", "127.0.0.1:0", "--data-dir", f"{WORK}/web", "--connections-per-minute", "1000"],
                      r"listening on 127\.0\.0\.1:(\d+)")
ssh, ssh_port = start(["serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", f"{WORK}/ssh", "--connections-per-minute", "1000"],
                      r"listening on 127\.0\.0\.1:(\d+)")
try:
    # Interleaved halves, so drift on a noisy machine falls on both.
    b1, bk1 = browser_figures(web_port)
    s1, sk1 = ssh_figures(ssh_port)
    b2, bk2 = browser_figures(web_port)
    s2, sk2 = ssh_figures(ssh_port)
finally:
    for p in (web, ssh):
        p.terminate()
        p.wait()
rows = [
    {"front": "browser", "measure": "first frame", **summary(b1 + b2)},
    {"front": "ssh", "measure": "first frame", **summary(s1 + s2)},
    {"front": "browser", "measure": "key round trip", **summary(bk1 + bk2)},
    {"front": "ssh", "measure": "key round trip", **summary(sk1 + sk2)},
]
with open(OUT, "w") as f:
    for row in rows:
        f.write(json.dumps(row) + "\n")
print(f"{'front':8} {'measure':15} {'median':>9} {'p90':>9} {'min':>9}   n")
for r in rows:
    print(f"{r['front']:8} {r['measure']:15} {r['median_ms']:9.2f} {r['p90_ms']:9.2f} {r['min_ms']:9.2f}   {r['n']}")
ratio = lambda m: next(r for r in rows if r["front"] == "browser" and r["measure"] == m)["median_ms"] / \
                  next(r for r in rows if r["front"] == "ssh" and r["measure"] == m)["median_ms"]
print(f"browser/ssh medians: first frame {ratio('first frame'):.2f}x, key round trip {ratio('key round trip'):.2f}x")
