#!/usr/bin/env python3
"""Where the browser tab's first frame goes (docs/BENCHMARKS.md): in headless Chromium, for each load, when the page
arrived, when connect.js made the WebSocket, when it opened, when its first message came, the page's first animation
frame (whatever it held), when the shop's rows were
painted (by the page's preview) and when they were in xterm.js's buffer (all read in the page, so WebDriver's round
trips add nothing); then one load's CPU profile, the functions with the most time.

    /usr/bin/python3 scripts/profile-web-first-frame.py STOREFRONT_BINARY [LOADS]

Needs chromium, chromium-driver and python3-selenium (Debian). Listens on 127.0.0.1 only.
"""
import collections
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from web_bench import SHOP_SHOWN, chromium, start_web  # noqa: E402

BIN, LOADS = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5
server, port = start_web(BIN)
driver = chromium()
# The page's own times: the socket's open, its first message in, and the first moment the buffer shows the shop.
driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": SHOP_SHOWN + """
// Listeners of its own on every socket: connect.js opens the socket before storefront.js sets its handlers.
const Original = WebSocket;
window.WebSocket = class extends Original {
  constructor(url, protocols) {
    super(url, protocols);
    window.__created = performance.now();
    this.addEventListener('open', () => { if (!window.__open) window.__open = performance.now(); });
    this.addEventListener('message', () => { if (!window.__message) window.__message = performance.now(); });
  }
};
"""})
try:
    for load in range(LOADS):
        driver.get(f"http://127.0.0.1:{port}/")
        time.sleep(1.5)
        times = driver.execute_script("""const n = performance.getEntriesByType('navigation')[0];
          return [n.responseEnd, window.__created || 0, window.__open || 0, window.__message || 0, window.__firstFrameAt || 0,
                  window.__shopShownAt || 0, window.__terminalReadyAt || 0].map(Math.round)""")
        print("load %d: page in %d ms, socket made %d, open %d, first message in %d, the page's first animation frame %d, "
              "shop painted %d, in xterm.js's buffer %d" % (load, *times))
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
