#!/usr/bin/env python3
"""Drives a headless Chromium for the tests: one JSON command per line on stdin, one JSON answer per line on stdout.

Commands: open, rows, wait, wait_rows, keys, page_keys, block, preview, scripts, html, boxes, count, resize, screenshot,
status, console, new_tab, close_tab, timing, quit (and the rest below).
Needs Debian's chromium, chromium-driver and python3-selenium.
"""
import json
import sys
import time

try:
    from selenium import webdriver
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException, WebDriverException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError as error:  # the test reports the package to install
    print(json.dumps({"error": f"python3-selenium is missing: {error}"}), flush=True)
    sys.exit(3)


class ReplacedNode(StaleElementReferenceException):
    """chromedriver's other word for a stale element: a node the page replaced while it was read."""


def steady(read):
    """`read` for a wait, with a page that navigates meanwhile read again rather than failing the wait."""
    def attempt(driver):
        try:
            return read(driver)
        except WebDriverException as error:
            if "does not belong to the document" in str(error):
                raise ReplacedNode(str(error)) from error
            raise
    return attempt


ROWS = """
const t = window.storefront && window.storefront.terminal;
if (!t) return null;
const b = t.buffer.active, rows = [];
for (let y = 0; y < t.rows; y++) { const l = b.getLine(b.viewportY + y); rows.push(l ? l.translateToString(true) : ""); }
return {rows: rows, columns: t.cols, lines: t.rows};
"""

KEYS = {"ENTER": Keys.ENTER, "DOWN": Keys.ARROW_DOWN, "UP": Keys.ARROW_UP, "LEFT": Keys.ARROW_LEFT,
        "RIGHT": Keys.ARROW_RIGHT, "TAB": Keys.TAB, "ESCAPE": Keys.ESCAPE, "BACKSPACE": Keys.BACKSPACE}


def start(width, height):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    # The last line turns off what a headless test never uses and would spend CPU on beside the page: updates,
    # extensions, sync, translation, model downloads.
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     f"--window-size={width},{height}", "--force-device-scale-factor=1", "--lang=en-US",
                     "--disable-background-networking", "--disable-component-update", "--disable-extensions",
                     "--disable-sync", "--disable-default-apps", "--no-first-run", "--mute-audio",
                     "--disable-features=Translate,MediaRouter,OptimizationHints,OptimizationGuideModelDownloading"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def screen(driver):
    return driver.execute_script(ROWS)


def main():
    first = json.loads(sys.stdin.readline())
    driver = start(first.get("width", 1200), first.get("height", 800))
    print(json.dumps({"ok": True, "version": driver.capabilities.get("browserVersion")}), flush=True)
    try:
        for line in sys.stdin:
            command = json.loads(line)
            op = command["op"]
            answer = {"ok": True}
            try:
                if op == "open":
                    started = time.monotonic()
                    driver.get(command["url"])
                    answer["title"] = driver.title
                    answer["loadedMs"] = (time.monotonic() - started) * 1000
                elif op == "rows":
                    answer["screen"] = screen(driver)
                elif op == "waitPage":
                    # Waits for text in the page's body: a page read while the browser navigates finds old elements gone.
                    wanted = command["text"]
                    try:
                        WebDriverWait(
                            driver, command.get("timeout", 20), poll_frequency=0.02,
                            ignored_exceptions=(NoSuchElementException, StaleElementReferenceException),
                        ).until(steady(lambda d: wanted in d.find_element(By.TAG_NAME, "body").text))
                    except TimeoutException:
                        answer = {"ok": False, "error": f"timed out waiting for {wanted!r} in the page"}
                elif op == "wait":
                    # Waits for text on the terminal's screen (or the status box); answers the screen either way.
                    wanted, timeout = command["text"], command.get("timeout", 20)
                    def seen(d):
                        s = screen(d)
                        status = d.find_element(By.ID, "status")
                        text = "\n".join(s["rows"]) if s else ""
                        if status.is_displayed():
                            text += "\n" + status.text
                        return text if wanted in text else False
                    started = time.monotonic()
                    try:
                        # A page that navigates meanwhile (a form sent) replaces the status box under the wait: look again.
                        WebDriverWait(
                            driver, timeout, poll_frequency=0.02, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException)
                        ).until(steady(seen))
                        answer["waitedMs"] = (time.monotonic() - started) * 1000
                    except TimeoutException:
                        answer = {"ok": False, "error": f"timed out waiting for {wanted!r}"}
                    answer["screen"] = screen(driver)
                elif op == "keys":
                    # xterm.js's input, once it is on the page (it loads after the first frame; page_keys reach the
                    # page before that).
                    target = WebDriverWait(driver, 20, poll_frequency=0.02, ignored_exceptions=(NoSuchElementException,)).until(
                        lambda d: d.find_element(By.CSS_SELECTOR, ".xterm-helper-textarea"))
                    for key in command["keys"]:
                        target.send_keys(KEYS.get(key, key))
                elif op == "resize":
                    # Resizes the window and waits until the terminal has other columns than before.
                    before = screen(driver)["columns"]
                    driver.set_window_size(command["width"], command["height"])
                    WebDriverWait(driver, 10, poll_frequency=0.02).until(lambda d: screen(d)["columns"] != before)
                    answer["screen"] = screen(driver)
                elif op == "window_size":
                    # Resizes the window, whatever draws the terminal.
                    driver.set_window_size(command["width"], command["height"])
                elif op == "accessible_text":
                    # The rows as assistive technology reads them: xterm.js's accessibility tree, as text.
                    wanted, timeout = command["text"], command.get("timeout", 20)
                    def tree(d):
                        found = d.find_elements(By.CSS_SELECTOR, ".xterm-accessibility-tree")
                        text = found[0].get_attribute("textContent") if found else ""
                        return text if wanted in text else False
                    try:
                        answer["text"] = WebDriverWait(driver, timeout, poll_frequency=0.05).until(tree)
                        answer["rows"] = len(driver.find_elements(By.CSS_SELECTOR, ".xterm-accessibility-tree > div"))
                    except TimeoutException:
                        answer = {"ok": False, "error": f"no accessibility tree holding {wanted!r}"}
                elif op == "block":
                    # Addresses this tab never loads (CDP Network.setBlockedURLs), as a slow or failed fetch would leave them.
                    driver.execute_cdp_cmd("Network.enable", {})
                    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": command["urls"]})
                elif op == "preview":
                    # The page's preview of the shop (connect.js's, before xterm.js takes over): its rows as text, once
                    # they show `text`, one of `any`, and row `row` starting with `prefix` (spaces aside) where given;
                    # with `narrower_than`, once the terminal is fewer columns than that too, answering its size.
                    wanted, either, timeout = command.get("text", ""), command.get("any", [""]), command.get("timeout", 20)
                    row, prefix, narrower = command.get("row"), command.get("prefix", ""), command.get("narrower_than")
                    read = "const e = window.storefrontEarly; return e && e.preview ? e.preview.text() : null;"
                    size = "const e = window.storefrontEarly; return e ? [e.columns, e.rows] : null;"
                    def shows(rows, d):
                        text = "\n".join(rows or [])
                        if rows is None or wanted not in text or not any(one in text for one in either):
                            return False
                        if narrower is not None and not (lambda s: s and s[0] < narrower and len(rows) == s[1])(d.execute_script(size)):
                            return False
                        return row is None or (row < len(rows) and rows[row].lstrip().startswith(prefix))
                    try:
                        answer["rows"] = WebDriverWait(driver, timeout, poll_frequency=0.02).until(
                            lambda d: (lambda rows: rows if shows(rows, d) else False)(d.execute_script(read)))
                        answer["size"] = driver.execute_script(size)
                    except TimeoutException:
                        answer = {"ok": False, "error": f"no preview showing {wanted!r}: {driver.execute_script(read)}"}
                elif op == "scripts":
                    # This tab runs its pages' scripts (`on`) or none (WebDriver's own still run through CDP).
                    driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": not command["on"]})
                elif op == "html":
                    # An element's HTML as the page holds it, read through CDP (so with the page's scripts off too).
                    root = driver.execute_cdp_cmd("DOM.getDocument", {})["root"]["nodeId"]
                    node = driver.execute_cdp_cmd("DOM.querySelector", {"nodeId": root, "selector": command["selector"]})["nodeId"]
                    answer["html"] = driver.execute_cdp_cmd("DOM.getOuterHTML", {"nodeId": node})["outerHTML"] if node else None
                elif op == "boxes":
                    # Where each element a selector matches is, from the terminal's box: its text, left and top.
                    answer["boxes"] = driver.execute_script("const t = document.getElementById('terminal').getBoundingClientRect(); "
                        "return Array.from(document.querySelectorAll(arguments[0]), (e) => { const r = e.getBoundingClientRect(); "
                        "return {text: e.textContent, left: r.left - t.left, top: r.top - t.top}; });", command["selector"])
                elif op == "no_socket":
                    # This tab's pages get a WebSocket that never connects (CDP's blocking does not reach sockets).
                    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": (
                        "window.WebSocket = class extends EventTarget { constructor(url) { super(); this.url = url; this.readyState = 3; } send() {} close() {} };")})
                elif op == "hold_sockets":
                    # This tab's pages' WebSockets seem to connect until window.__openSockets() (their state and open
                    # event held back; what is sent before would be refused by a real connecting socket).
                    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": (
                        "const Real = window.WebSocket; const held = []; let opened = false; "
                        "window.__openSockets = () => { opened = true; for (const s of held.splice(0)) s.dispatchEvent(new Event('open')); }; "
                        "window.WebSocket = class extends Real { constructor(url, protocols) { super(url, protocols); "
                        "super.addEventListener('open', (e) => { if (!opened) { e.stopImmediatePropagation(); held.push(this); } }); } "
                        "get readyState() { const s = super.readyState; return s === 1 && !opened ? 0 : s; } "
                        "send(data) { if (!opened) throw new Error('sent before the open'); super.send(data); } };")})
                elif op == "open_sockets":
                    driver.execute_script("window.__openSockets();")
                elif op == "record_sockets":
                    # This tab's pages keep the address of every WebSocket they open (the sockets themselves work).
                    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": (
                        "window.__socketURLs = []; const RealSocket = window.WebSocket; window.WebSocket = class extends RealSocket "
                        "{ constructor(url, protocols) { super(url, protocols); window.__socketURLs.push(String(url)); } };")})
                elif op == "socket_urls":
                    # The addresses this page's sockets were opened with, and the sign-in its terminal's box names.
                    answer.update(driver.execute_script(
                        "const box = document.getElementById('terminal'); "
                        "return {urls: window.__socketURLs || [], signedIn: box ? (box.dataset.signedIn || null) : null};"))
                elif op == "early":
                    # The page's own start (connect.js), once its socket is no longer connecting: the socket's state
                    # (1 open, 3 closed), how many messages it drew (the page's own frames count as one), and whether
                    # the page came with a session's first frames.
                    read = ("const e = window.storefrontEarly; return e && e.socket.readyState !== 0 ? {socket: e.socket.readyState, "
                            "messages: e.messages.length, pageFrames: !!document.getElementById('first-frame')} : null;")
                    try:
                        answer.update(WebDriverWait(driver, command.get("timeout", 20), poll_frequency=0.02).until(lambda d: d.execute_script(read)))
                    except TimeoutException:
                        answer = {"ok": False, "error": "the page's socket is still connecting"}
                elif op == "preview_writes":
                    # A preview of its own (preview.js's, on a box of its own) given `writes` one by one: after each,
                    # its rows as text() answers them and as its layer shows them, and write()'s answer; with
                    # `then_wait`, once more when text() answers rows again with no write (a frame's end never came).
                    made = ("const box = document.createElement('div'); box.dataset.font = 'monospace'; document.body.appendChild(box); "
                            "window.__preview = {box: box, preview: window.storefrontPreview(box, 20, 3, {width: 9, height: 18})};")
                    look = ("const t = window.__preview, layer = t.box.querySelector('.storefront-preview'); "
                            "return {text: t.preview.text(), drawn: Array.from(layer.children, (l) => l.textContent.replace(/\\s+$/, ''))};")
                    driver.execute_script(made)
                    answer["after"] = []
                    for write in command["writes"]:
                        shown = driver.execute_script("return window.__preview.preview.write(new TextEncoder().encode(arguments[0]));", write)
                        answer["after"].append(dict(driver.execute_script(look), shown=shown))
                    if command.get("then_wait"):
                        try:
                            WebDriverWait(driver, 5, poll_frequency=0.02).until(lambda d: d.execute_script("return window.__preview.preview.text() !== null;"))
                            answer["after"].append(driver.execute_script(look))
                        except TimeoutException:
                            answer = {"ok": False, "error": "the frame was never drawn"}
                    driver.execute_script("window.__preview.preview.remove(); window.__preview.box.remove();")
                elif op == "wait_rows":
                    # Waits until the terminal's rows, each without its trailing spaces, are `rows`.
                    wanted = command["rows"]
                    trimmed = lambda d: [r.rstrip() for r in (screen(d) or {"rows": []})["rows"]]
                    try:
                        WebDriverWait(driver, command.get("timeout", 20), poll_frequency=0.02).until(lambda d: trimmed(d) == wanted)
                    except TimeoutException:
                        answer = {"ok": False, "error": "the terminal's rows differ", "screen": screen(driver), "wanted": wanted}
                elif op == "count":
                    # How many elements match a selector, once that is `equals` (or at once without it).
                    selector, equals = command["selector"], command.get("equals")
                    count = lambda d: len(d.find_elements(By.CSS_SELECTOR, selector))
                    if equals is not None:
                        try:
                            WebDriverWait(driver, command.get("timeout", 20), poll_frequency=0.02).until(lambda d: count(d) == equals)
                        except TimeoutException:
                            pass
                    answer["count"] = count(driver)
                elif op == "page_keys":
                    # Keys to whatever has the focus (the page itself while xterm.js is not there to take them).
                    actions = ActionChains(driver)
                    for key in command["keys"]:
                        actions.send_keys(KEYS.get(key, key))
                    actions.perform()
                elif op == "screenshot":
                    driver.save_screenshot(command["path"])
                elif op == "status":
                    status = driver.find_element(By.ID, "status")
                    answer["visible"] = status.is_displayed()
                    answer["text"] = driver.find_element(By.ID, "status-text").text
                elif op == "click_reconnect":
                    driver.find_element(By.ID, "reconnect").click()
                elif op == "console":
                    answer["messages"] = [entry["message"] for entry in driver.get_log("browser")]
                elif op == "new_tab":
                    driver.switch_to.new_window("tab")
                elif op == "switch_tab":
                    driver.switch_to.window(driver.window_handles[command["index"]])
                elif op == "close_tab":
                    driver.close()
                    driver.switch_to.window(driver.window_handles[0])
                elif op == "key_round_trip":
                    # Presses a key and times until the screen shows `text`: one keystroke through the browser.
                    target = driver.find_element(By.CSS_SELECTOR, ".xterm-helper-textarea")
                    started = time.monotonic()
                    target.send_keys(KEYS.get(command["key"], command["key"]))
                    wanted = command["text"]
                    WebDriverWait(driver, 10, poll_frequency=0.001).until(
                        lambda d: wanted in "\n".join((screen(d) or {"rows": []})["rows"]))
                    answer["ms"] = (time.monotonic() - started) * 1000
                elif op == "fill":
                    field = driver.find_element(By.CSS_SELECTOR, command["selector"])
                    field.clear()
                    field.send_keys(command["text"])
                elif op == "click":
                    driver.find_element(By.CSS_SELECTOR, command["selector"]).click()
                    answer["url"] = driver.current_url
                elif op == "page":
                    # The page as its reader sees it: the address, the body's text, the cookies script can read, and
                    # every cookie with its flags (from the browser, which also sees HttpOnly ones).
                    answer["url"] = driver.current_url
                    answer["text"] = driver.find_element(By.TAG_NAME, "body").text
                    answer["scriptCookies"] = driver.execute_script("return document.cookie")
                    answer["cookies"] = driver.get_cookies()
                elif op == "add_cookie":
                    driver.add_cookie({"name": command["name"], "value": command["value"], "path": "/"})
                elif op == "quit":
                    print(json.dumps(answer), flush=True)
                    break
                else:
                    answer = {"ok": False, "error": f"unknown op {op}"}
            except Exception as error:  # reported to the test, which fails with it
                answer = {"ok": False, "error": f"{type(error).__name__}: {error}"}
            print(json.dumps(answer), flush=True)
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
