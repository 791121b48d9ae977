#!/usr/bin/env python3
"""Where the browser tab's first frame goes (docs/BENCHMARKS.md): in headless Chromium, for each load, when the
WebSocket opened, when its first message was handled, and when the shop's rows were in xterm.js's buffer (polled in
the page, so WebDriver's round trips add nothing); then one load's CPU profile, the functions with the most time.

    /usr/bin/python3 scripts/profile-web-first-frame.py STOREFRONT_BINARY [LOADS]

Needs chromium, chromium-driver and python3-selenium (Debian). Listens on 127.0.0.1 only.
"""
import collections
import re
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

BIN, LOADS = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5
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
# The page's own times: the socket's open, its first message handled, and the first moment the buffer shows the shop.
driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
for (const [name, key] of [['onopen', '__open'], ['onmessage', '__message']]) {
  const property = Object.getOwnPropertyDescriptor(WebSocket.prototype, name);
  Object.defineProperty(WebSocket.prototype, name, { configurable: true, get() { return property.get.call(this); },
    set(handler) { property.set.call(this, function (event) { const result = handler.call(this, event); if (!window[key]) window[key] = performance.now(); return result; }); } });
}
const poll = setInterval(() => { const t = window.storefront && window.storefront.terminal; if (!t) return;
  const b = t.buffer.active; for (let y = 0; y < t.rows; y++) { const l = b.getLine(b.viewportY + y);
    if (l && l.translateToString(true).includes('Products')) { window.__shown = performance.now(); clearInterval(poll); return; } } }, 1);
"""})
try:
    for load in range(LOADS):
        driver.get(f"http://127.0.0.1:{port}/")
        time.sleep(1.5)
        times = driver.execute_script("""const n = performance.getEntriesByType('navigation')[0];
          return [n.loadEventEnd, window.__open || 0, window.__message || 0, window.__shown || 0].map(Math.round)""")
        print("load %d: page loaded %d ms, socket open %d, first message handled %d, shop in the buffer %d" % (load, *times))
        driver.get("about:blank")
    driver.execute_cdp_cmd("Profiler.enable", {})
    driver.execute_cdp_cmd("Profiler.setSamplingInterval", {"interval": 200})
    driver.execute_cdp_cmd("Profiler.start", {})
    driver.get(f"http://127.0.0.1:{port}/")
    time.sleep(1.0)
    profile = driver.execute_cdp_cmd("Profiler.stop", {})["profile"]
finally:
    driver.quit()
    server.terminate()
nodes = {node["id"]: node for node in profile["nodes"]}
spent = collections.Counter()
for sample, delta in zip(profile["samples"], profile["timeDeltas"]):
    frame = nodes[sample]["callFrame"]
    spent[(frame["functionName"] or "(anonymous)", frame["url"].split("/")[-1], frame.get("columnNumber"))] += delta / 1000
print("one load's CPU profile, most time first:")
for (function, url, column), ms in spent.most_common(8):
    print(f"  {ms:8.1f} ms  {function} {url}:{column}")
