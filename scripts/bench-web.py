#!/usr/bin/env python3
"""The browser front: time to the first frame and one key's round trip, in headless Chromium (Selenium).

First frame, two ways: from asking WebDriver for the page to the shop's product list read off the page (the page,
the WebSocket, the session's start, the frame drawn by the page's preview or by xterm.js, and WebDriver's own round
trips: each read is a few ms); and in the page, from the navigation's start to the animation frame that paints the
shop (its header, which the catalog's loading line shows too), polled in the page every millisecond (no WebDriver
round trip in it); list in page: the same for the list itself (its selection marker). Terminal ready: in the page, the first
moment xterm.js's buffer holds the list (keys from then on go through xterm.js). Floor: the first animation frame of a
plain file from the same server under the same headers (Chromium's own share: its renderer's start, a new one for the
page's Cross-Origin-Opener-Policy). Each run loads the page twice: a first visit (no cookie, so the socket starts
the session: "first visit", in page), then a returning tab (the size cookie that visit set, so the page starts the
session and carries its first frames: every other measure). Key: Down pressed in the page to the selection drawn one row lower, read through
WebDriver. "from another site": the returning tab's list and the floor again, each navigated to from a page of
another site (http://localhost:PORT, not 127.0.0.1) as a shopper coming from a link or a new tab is; from about:blank,
Chromium may give the page the renderer it already runs, unless the page's Cross-Origin-Opener-Policy asks for a
browsing context group of its own (the floor under the shop's headers pays for a new renderer there).
Usage: bench-web.py BIN RUNS KEYS OUT.jsonl [SERVER ARGUMENT ...]   (for example --first-frame-ms 0: no page sessions)
       BENCH_RTT_MS=50 [BENCH_HANDSHAKES=2] bench-web.py ...   # through scripts/delay_proxy.py: the shop 50 ms away
"""
import json, os, re, socket, statistics, subprocess, sys, tempfile, time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from web_bench import SHOP_SHOWN  # noqa: E402

BIN, RUNS, KEYS, OUT, EXTRA = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5:]
WORK = tempfile.mkdtemp()
ROWS = """const t = window.storefront && window.storefront.terminal; if (!t) return "";
const b = t.buffer.active, r = []; for (let y = 0; y < t.rows; y++) { const l = b.getLine(b.viewportY + y); r.push(l ? l.translateToString(true) : ""); }
return r.join("\\n");"""


def start(args, pattern):
    """Starts the server with its log in a file (a pipe nobody reads could fill); returns it and its port."""
    env = dict(os.environ, XDG_CONFIG_HOME=f"{WORK}/config", STOREFRONT_THEME="dark")
    log = f"{WORK}/{args[0]}.log"
    proc = subprocess.Popen([BIN] + args, stdout=open(log, "w"), stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        m = re.search(pattern, open(log).read())
        if m:
            return proc, int(m.group(1))
        time.sleep(0.05)
    raise SystemExit(f"{args[0]} did not start: {open(log).read()}")


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
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": SHOP_SHOWN})
    first, in_page, ready, floor, keys, first_visit = [], [], [], [], [], []
    list_in_page, first_visit_list, list_elsewhere, floor_elsewhere = [], [], [], []
    try:
        for _ in range(RUNS):
            # A first visit: no cookie, so the page starts no session and its socket does.
            # Through CDP: WebDriver's own deletion only reaches the cookies of the page it is on (about:blank's).
            driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
            driver.get(f"http://127.0.0.1:{port}/")
            WebDriverWait(driver, 20, poll_frequency=0.001).until(lambda d: d.execute_script("return window.__shopShownAt && window.__listShownAt"))
            first_visit.append(driver.execute_script("return window.__shopShownAt"))
            first_visit_list.append(driver.execute_script("return window.__listShownAt"))
            driver.get("about:blank")
            # A returning tab (the cookie the first visit set): the page carries its session's first frames.
            started = time.monotonic()
            driver.get(f"http://127.0.0.1:{port}/")
            try:
                WebDriverWait(driver, 20, poll_frequency=0.001).until(
                    lambda d: "Products" in d.execute_script("return document.getElementById('terminal').textContent"))
            except Exception:
                raise SystemExit("the page showed no shop: " + driver.find_element(By.ID, "status").text + "\n" + open(f"{WORK}/web.log").read())
            first.append((time.monotonic() - started) * 1000)
            WebDriverWait(driver, 20, poll_frequency=0.001).until(
                lambda d: d.execute_script("return window.__shopShownAt && window.__terminalReadyAt && window.__listShownAt"))
            in_page.append(driver.execute_script("return window.__shopShownAt"))
            list_in_page.append(driver.execute_script("return window.__listShownAt"))
            ready.append(driver.execute_script("return window.__terminalReadyAt"))
            target = driver.find_element(By.CSS_SELECTOR, ".xterm-helper-textarea")
            for k in range(KEYS):
                # The selection marker on row k+3 of the list after k+1 presses.
                started = time.monotonic()
                target.send_keys(Keys.ARROW_DOWN)
                WebDriverWait(driver, 10, poll_frequency=0.001).until(
                    lambda d: d.execute_script(ROWS).split("\n")[3 + k].lstrip().startswith("\u203a"))
                keys.append((time.monotonic() - started) * 1000)
            driver.get("about:blank")
            # The floor: a file of the same server, under the same headers, with nothing of the shop in it.
            driver.get(f"http://127.0.0.1:{port}/assets/LICENSE-xterm.txt")
            WebDriverWait(driver, 20, poll_frequency=0.001).until(lambda d: d.execute_script("return window.__firstFrameAt"))
            floor.append(driver.execute_script("return window.__firstFrameAt"))
            # The returning tab and the floor again, each from a page of another site.
            for address, mark, figures in [(f"http://127.0.0.1:{port}/", "__listShownAt", list_elsewhere),
                                           (f"http://127.0.0.1:{port}/assets/LICENSE-xterm.txt", "__firstFrameAt", floor_elsewhere)]:
                driver.get(f"http://localhost:{port}/assets/LICENSE-xterm.txt")
                driver.get(address)
                WebDriverWait(driver, 20, poll_frequency=0.001).until(lambda d: d.execute_script(f"return window.{mark}"))
                figures.append(driver.execute_script(f"return window.{mark}"))
            driver.get("about:blank")
    finally:
        driver.quit()
    return first, in_page, ready, floor, keys, first_visit, list_in_page, first_visit_list, list_elsewhere, floor_elsewhere


# BENCH_RTT_MS: the browser reaches the server through scripts/delay_proxy.py, each way half of it later.
RTT = float(os.environ.get("BENCH_RTT_MS", "0"))
proxy_port = None
if RTT > 0:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        proxy_port = probe.getsockname()[1]
    EXTRA = EXTRA + ["--public-origin", f"http://127.0.0.1:{proxy_port}"]
web, web_port = start(["web", "--listen", "127.0.0.1:0", "--data-dir", f"{WORK}/web", "--connections-per-minute", "1000", "--sessions-per-address", "100", "--connections-per-address", "300"] + EXTRA,
                      r"listening on 127\.0\.0\.1:(\d+)")
proxy = None
try:
    if proxy_port:
        proxy = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "delay_proxy.py"), str(web_port),
                                  str(RTT / 2), str(proxy_port), os.environ.get("BENCH_HANDSHAKES", "1")], stdout=subprocess.PIPE, text=True)
        proxy.stdout.readline()
    first, in_page, ready, floor, keys, first_visit, list_in_page, first_visit_list, list_elsewhere, floor_elsewhere = browser_figures(
        proxy_port or web_port)
finally:
    if proxy:
        proxy.terminate()
    web.terminate()
    web.wait()
rows = [
    {"front": "browser", "measure": "first frame", **summary(first)},
    {"front": "browser", "measure": "first in page", **summary(in_page)},
    {"front": "browser", "measure": "list in page", **summary(list_in_page)},
    {"front": "browser", "measure": "first visit", **summary(first_visit)},
    {"front": "browser", "measure": "visit's list", **summary(first_visit_list)},
    {"front": "browser", "measure": "ready in page", **summary(ready)},
    {"front": "browser", "measure": "floor in page", **summary(floor)},
    {"front": "browser", "measure": "list, elsewhere", **summary(list_elsewhere)},
    {"front": "browser", "measure": "floor, elsewhere", **summary(floor_elsewhere)},
    {"front": "browser", "measure": "key round trip", **summary(keys)},
]
with open(OUT, "w") as f:
    for row in rows:
        f.write(json.dumps(row) + "\n")
print(f"{'front':8} {'measure':15} {'median':>9} {'p90':>9} {'min':>9}   n")
for r in rows:
    print(f"{r['front']:8} {r['measure']:15} {r['median_ms']:9.2f} {r['p90_ms']:9.2f} {r['min_ms']:9.2f}   {r['n']}")
