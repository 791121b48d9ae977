#!/usr/bin/env python3
"""The browser tab with and without its early socket, in one run (docs/BENCHMARKS.md, "The shop in a browser").

Loads the page LOADS times in headless Chromium, alternately as served and with connect.js blocked (CDP
Network.setBlockedURLs), so storefront.js opens the socket itself after xterm.js, as before connect.js existed. Each
load's first frame is read in the page: from the navigation's start to the first moment xterm.js's buffer holds the
list, polled in the page every millisecond. Also prints what the first load transferred (the files' gzip).

    /usr/bin/python3 scripts/bench-web-early.py STOREFRONT_BINARY [LOADS]

Needs chromium, chromium-driver and python3-selenium (Debian). Listens on 127.0.0.1 only.
"""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from web_bench import SHOP_SHOWN, chromium, start_web  # noqa: E402

BIN, LOADS = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 40
server, port = start_web(BIN)
driver = chromium()
driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": SHOP_SHOWN})
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
