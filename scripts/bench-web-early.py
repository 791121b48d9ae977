#!/usr/bin/env python3
"""The browser tab with and without its early socket, in one run (docs/BENCHMARKS.md, "The shop in a browser").

Loads the page LOADS times in headless Chromium, alternately as served and with connect.js blocked (CDP
Network.setBlockedURLs), so storefront.js opens the socket itself after xterm.js, as before connect.js existed. Each
load's first frame is read in the page: from the navigation's start to the first moment xterm.js's buffer holds the
list, polled in the page every millisecond. Also prints what the first load transferred (the files' gzip).

    /usr/bin/python3 scripts/bench-web-early.py STOREFRONT_BINARY [LOADS]

Needs chromium, chromium-driver and python3-selenium (Debian). Listens on 127.0.0.1 only.
"""
import re
import statistics
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

BIN, LOADS = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 40
WORK = tempfile.mkdtemp()
server = subprocess.Popen([BIN, "web", "--listen", "127.0.0.1:0", "--data-dir", f"{WORK}/data", "--connections-per-minute", "1000",
                           "--sessions-per-address", "100"], stdout=open(f"{WORK}/web.log", "w"), stderr=subprocess.STDOUT)
port = None
for _ in range(400):
    time.sleep(0.05)
    found = re.search(r"listening on 127\.0\.0\.1:(\d+)", open(f"{WORK}/web.log").read())
    if found:
        port = found.group(1)
        break
if port is None:
    raise SystemExit("storefront web did not listen: " + open(f"{WORK}/web.log").read())
options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1000,640"]:
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
const shown = setInterval(() => { const t = window.storefront && window.storefront.terminal; if (!t) return;
  const b = t.buffer.active; for (let y = 0; y < t.rows; y++) { const l = b.getLine(b.viewportY + y);
    if (l && l.translateToString(true).includes('Products')) { window.__shopShownAt = performance.now(); clearInterval(shown); return; } } }, 1);
"""})
driver.execute_cdp_cmd("Network.enable", {})
shown = {True: [], False: []}
try:
    for load in range(LOADS):
        early = load % 2 == 0
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": [] if early else ["*connect.*"]})
        driver.get(f"http://127.0.0.1:{port}/")
        deadline = time.monotonic() + 20
        while not driver.execute_script("return window.__shopShownAt"):
            if time.monotonic() > deadline:
                raise SystemExit("the page showed no shop")
        shown[early].append(driver.execute_script("return window.__shopShownAt"))
        if load == 0:
            sizes = driver.execute_script("return performance.getEntriesByType('resource').map(r => [r.name.split('/').pop(), r.transferSize])")
            print("first load transferred:", ", ".join(f"{name} {size} B" for name, size in sizes), f"(sum {sum(s for _, s in sizes)} B)")
        driver.get("about:blank")
finally:
    driver.quit()
    server.terminate()
for early in (True, False):
    values = sorted(shown[early])
    print(f"{'socket opened by connect.js' if early else 'connect.js blocked':28} first frame in page p50 {statistics.median(values):7.1f} ms"
          f"  p90 {values[int(0.9 * (len(values) - 1))]:7.1f}  n {len(values)}")
