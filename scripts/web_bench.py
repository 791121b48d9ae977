"""What the browser benchmarks share: `storefront web` on a free loopback port, and headless Chromium at 1000x640.

Imported by scripts/bench-web.py and scripts/profile-web-first-frame.py (run them from anywhere; they add their
own folder to the path).
"""
import re
import subprocess
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

# In every page, before its own scripts: the first frame painted with the shop on it (its header's "Products", which
# its loading line shows too), and the first with the list itself (its selection marker), from the navigation's
# start (the page's text, drawn by the preview or by xterm.js, seen as it changes, then the next animation frame: the
# one that paints it); and the first moment xterm.js's buffer holds the list (the terminal ready for the keys). And the
# document's first animation frame, whatever it holds: on a file with nothing of the shop in it, Chromium's own floor.
SHOP_SHOWN = """
requestAnimationFrame(() => { window.__firstFrameAt = performance.now(); });
const shown = new MutationObserver(() => { const box = document.getElementById('terminal');
  if (box && box.textContent.includes('Products') && !window.__shopShown) { window.__shopShown = true; requestAnimationFrame(() => { window.__shopShownAt = performance.now(); }); }
  if (box && box.textContent.includes('\u203a')) { shown.disconnect(); requestAnimationFrame(() => { window.__listShownAt = performance.now(); }); } });
shown.observe(document, { childList: true, subtree: true, characterData: true });
const ready = setInterval(() => { const t = window.storefront && window.storefront.terminal; if (!t) return;
  const b = t.buffer.active; for (let y = 0; y < t.rows; y++) { const l = b.getLine(b.viewportY + y);
    if (l && l.translateToString(true).includes('Products')) { window.__terminalReadyAt = performance.now(); clearInterval(ready); return; } } }, 1);
"""


def start_web(binary):
    """Starts `storefront web` with its log in a file; returns the process and its port."""
    work = tempfile.mkdtemp()
    server = subprocess.Popen([binary, "web", "--listen", "127.0.0.1:0", "--data-dir", f"{work}/data", "--connections-per-minute", "1000",
                               "--sessions-per-address", "100"], stdout=open(f"{work}/web.log", "w"), stderr=subprocess.STDOUT)
    for _ in range(400):
        time.sleep(0.05)
        found = re.search(r"listening on 127\.0\.0\.1:(\d+)", open(f"{work}/web.log").read())
        if found:
            return server, found.group(1)
    server.terminate()
    raise SystemExit("storefront web did not listen: " + open(f"{work}/web.log").read())


def chromium():
    """Debian's headless Chromium through its driver."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1000,640"]:
        options.add_argument(argument)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
