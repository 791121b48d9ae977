#!/usr/bin/env python3
"""Where a returning tab's first frame goes, in one Chromium and one run: the live page beside the same page's bytes
from a server that answers at once, and Chromium's floors (a plain file with and without the shop's headers), each
loaded from about:blank and from another site.

    /usr/bin/python3 scripts/bench-web-floors.py BINARY [LOADS]     # default 12 loads of each

- live page: `storefront web`'s `GET /` with the tab's size cookie (the session started with the page, its frames in
  it), to its list painted (web_bench.SHOP_SHOWN).
- page copy: those bytes fetched once and served again by a static server with the shop's own headers: the page
  without the server's wait for the session's frames. "drawn by its scripts": the same without its first screen's
  HTML, so connect.js and preview.js draw it from the page's bytes.
- page copy without COOP: the page copy under the shop's headers but `Cross-Origin-Opener-Policy`, which puts the page
  in a browsing context group of its own: what that header costs a tab.
- plain file, shop's headers / no headers: a 1.3 KB text file's first animation frame, the floor under any page.
- "from another site": navigated from a page on http://localhost:PORT (another site than 127.0.0.1), as a shopper
  coming from elsewhere does; "from about:blank" is how scripts/bench-web loads.
Needs Debian's chromium, chromium-driver and python3-selenium. Listens on 127.0.0.1 only.
"""
import functools
import http.server
import os
import re
import statistics
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from web_bench import SHOP_SHOWN, chromium, start_web  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

BINARY, LOADS = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 12
server, port = start_web(BINARY)
files = tempfile.mkdtemp()
live = f"http://127.0.0.1:{port}/"
# A page whose first screen came whole, as HTML (a new worker's first page may go before its picture is drawn).
for _ in range(10):
    answer = urllib.request.urlopen(urllib.request.Request(live, headers={"Cookie": "storefront-terminal=109x27"}))
    page = answer.read()
    if b'id="first-screen"' in page:
        break
shop_headers = [(name, value) for name, value in answer.getheaders()
                if name.lower() not in ("content-length", "transfer-encoding", "date", "vary", "content-type")]
open(f"{files}/page.html", "wb").write(page)
# The same page without its first screen's HTML: its scripts draw the screen from its bytes.
scripted = re.sub(rb'<div id="first-screen".*?</div></div>\n', b"", re.sub(rb"\n<style>#first-screen.*?</style>", b"", page, flags=re.S), flags=re.S)
open(f"{files}/scripted.html", "wb").write(scripted)
has_screen = b'id="first-screen"' in page
print(f"page copy: {len(page)} bytes, its first screen as HTML: {has_screen}; without it: {len(scripted)} bytes")
open(f"{files}/plain.txt", "w").write("Storefront\n" + "A plain file: Chromium's floor under any page.\n" * 28)
open(f"{files}/elsewhere.html", "w").write("<!doctype html><title>elsewhere</title><p>another site</p>")


class Files(http.server.SimpleHTTPRequestHandler):
    def end_headers(self):
        if not self.path.startswith("/bare/") and not self.path.startswith("/elsewhere"):
            for name, value in shop_headers:
                if not (self.path.startswith("/no-coop/") and name.lower() == "cross-origin-opener-policy"):
                    self.send_header(name, value)
        super().end_headers()

    def do_GET(self):
        # The page's scripts and styles (versioned files under /assets/) come from the live server, as it sends them.
        if "/assets/" not in self.path:
            return super().do_GET()
        with urllib.request.urlopen(live.rstrip("/") + self.path[self.path.index("/assets/"):]) as asset:
            body = asset.read()
            self.send_response(asset.status)
            for name, value in asset.getheaders():
                if name.lower() in ("content-type", "content-encoding", "cache-control"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass   # the page went on without it (a load cancelled by the next navigation)

    def translate_path(self, path):
        return super().translate_path(path.replace("/bare/", "/", 1).replace("/no-coop/", "/", 1))

    def log_message(self, *arguments):
        pass


static = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Files, directory=files))
threading.Thread(target=static.serve_forever, daemon=True).start()
other = static.server_address[1]
cases = [("live page", live, "__listShownAt"), ("page copy", f"http://127.0.0.1:{other}/page.html", "__listShownAt"),
         ("page copy, drawn by its scripts", f"http://127.0.0.1:{other}/scripted.html", "__listShownAt"),
         ("page copy without COOP", f"http://127.0.0.1:{other}/no-coop/page.html", "__listShownAt"),
         ("plain file, shop's headers", f"http://127.0.0.1:{other}/plain.txt", "__firstFrameAt"),
         ("plain file, no headers", f"http://127.0.0.1:{other}/bare/plain.txt", "__firstFrameAt")]
starts = [("from about:blank", "about:blank"), ("from another site", f"http://localhost:{other}/elsewhere.html")]
figures = {(start, case): [] for start, _ in starts for case, _, _ in cases}
driver = chromium()
driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": SHOP_SHOWN})
try:
    driver.get(live)   # the size cookie, as a returning tab has it
    WebDriverWait(driver, 20).until(lambda d: d.execute_script("return window.__listShownAt"))
    for _ in range(LOADS):   # interleaved, so the machine's drifts hit every case alike
        for start, first in starts:
            for case, address, mark in cases:
                driver.get(first)
                driver.get(address)
                WebDriverWait(driver, 20, poll_frequency=0.001).until(lambda d: d.execute_script(f"return window.{mark}"))
                figures[(start, case)].append(driver.execute_script(f"return window.{mark}"))
finally:
    driver.quit()
    static.shutdown()
    server.terminate()
print(f"| {LOADS} loads, ms from the navigation's start | " + " | ".join(f"{start}: p50 (p90)" for start, _ in starts) + " |")
print("|---|" + "---|" * len(starts))
for case, _, _ in cases:
    cells = []
    for start, _ in starts:
        values = sorted(figures[(start, case)])
        cells.append(f"{statistics.median(values):.1f} ({values[int(0.9 * (len(values) - 1))]:.1f})")
    print(f"| {case} | " + " | ".join(cells) + " |")
