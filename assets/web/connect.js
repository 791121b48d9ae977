// Storefront in a browser, inline in the page after the terminal's box (and after preview.js; or loaded by
// after-paint.js once the page's first screen, written as HTML, is painted): opens the shop's socket as the page is
// read, draws what comes on it with the preview until xterm.js is ready, sends the keys pressed meanwhile, and loads
// xterm.js and storefront.js once the first frame is on the screen, so their minute of compiling comes after it.
// storefront.js takes the socket over with every message that came, then removes the preview.
//
// Order: measure the terminal as xterm.js's fit will → open the socket → draw each message (the first after the page's
// own bytes, whose screen the server may have written as HTML: then the preview is made only when that screen changes)
// → after the first frame is painted (or the socket closed, or 250 ms passed without a frame): xterm.css, then the
// scripts in order.
"use strict";

(function () {
  const box = document.getElementById("terminal");
  if (!box) return;
  let loading = false;

  // The shop's socket's address, for this script and storefront.js's reconnect alike: the terminal's size, the session
  // started with the page where there is one, and the sign-in the page was drawn for (its public id), so a sign-in
  // that ended before the socket came is told, not handed a guest's shop, or another's, under "Signed in as".
  window.storefrontSocketURL = function (columns, rows, session) {
    const url = new URL("session", window.location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    url.search = "?columns=" + columns + "&rows=" + rows + (session ? "&session=" + session : "") +
      (box.dataset.signedIn ? "&signed-in=" + encodeURIComponent(box.dataset.signedIn) : "");
    return url.href;
  };

  // The terminal's files, named with their versions on the box: the style sheet first, then the scripts in order.
  function loadTerminal() {
    if (loading) return;
    loading = true;
    const [sheet, ...scripts] = box.dataset.terminal.split(" ");
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = sheet;
    // xterm.js measures its cells through this sheet's rules: the scripts come once it is in (or could not be had).
    const scriptsAfter = function () {
      for (const source of scripts) {
        const script = document.createElement("script");
        script.src = source;
        script.async = false;
        document.head.appendChild(script);
      }
    };
    link.addEventListener("load", scriptsAfter, { once: true });
    link.addEventListener("error", scriptsAfter, { once: true });
    document.head.appendChild(link);
  }

  // The page's own session and its first frame, where the server started one with the page; and that frame's screen as
  // HTML, where the server wrote it, painted before this script ran.
  const started = document.getElementById("first-frame");
  const firstScreen = document.getElementById("first-screen");
  // Then nothing is measured until that screen is painted (a measure lays the page out while it is still being read):
  // the socket opens at the size the page was made for, and the size is checked after the paint.
  const measureLater = !!(firstScreen && started && started.text.length > 0 && typeof window.storefrontPreview === "function");
  const cell = { width: 0, height: 0 };
  let scrollBar = 15;
  // A cell's size in the terminal's font, as xterm.js measures it, and the width the page's scroll bar takes.
  function measureCell() {
    const probe = document.createElement("span");
    probe.textContent = "W".repeat(32);
    const scroller = document.createElement("div");
    // Styles set through CSSOM, which the page's policy allows.
    Object.assign(probe.style, {
      position: "absolute", visibility: "hidden", whiteSpace: "pre", lineHeight: "normal", fontSize: "15px",
      fontFamily: box.dataset.font,
    });
    Object.assign(scroller.style, { position: "absolute", visibility: "hidden", overflowY: "scroll", width: "60px", height: "60px" });
    box.appendChild(probe);
    box.appendChild(scroller);
    cell.width = probe.getBoundingClientRect().width / 32;
    cell.height = Math.ceil(probe.getBoundingClientRect().height);
    // xterm.js 4.14's first fit takes 15 pixels for the scroll bar where the page's is an overlay (0 wide).
    scrollBar = scroller.offsetWidth - scroller.clientWidth || 15;
    box.removeChild(probe);
    box.removeChild(scroller);
    return cell.width > 0 && cell.height > 0;
  }
  if (typeof WebSocket !== "function" || !(measureLater || measureCell())) return loadTerminal();
  // The terminal's size in the box as it is now.
  function measure() {
    if (!(cell.width > 0)) measureCell();
    const style = window.getComputedStyle(box);
    return {
      columns: Math.max(2, Math.floor((Math.max(0, parseInt(style.width, 10)) - scrollBar) / cell.width)),
      rows: Math.max(1, Math.floor(parseInt(style.height, 10) / cell.height)),
    };
  }
  const { columns, rows } = measureLater ? { columns: Number(started.dataset.columns), rows: Number(started.dataset.rows) } : measure();

  // The size, for the next visit: the server starts that visit's session with the page. Lax: a visit by a link from
  // another site carries it too (it says only the size; starting a shop is what a visit does anyway). storefront.js
  // keeps it as the terminal is resized.
  window.storefrontRemember = function (columns, rows) {
    document.cookie = "storefront-terminal=" + columns + "x" + rows + "; Max-Age=31536000; SameSite=Lax" +
      (window.location.protocol === "https:" ? "; Secure" : "");
  };
  window.storefrontRemember(columns, rows);
  const socket = new WebSocket(window.storefrontSocketURL(columns, rows, started && started.dataset.session));
  socket.binaryType = "arraybuffer";
  // Made at the first frame: until then the page has other work (the rest of the page, the socket's open).
  let preview = null;
  // The page's own bytes its first screen (HTML) shows, not yet given to the preview: the preview is made only when
  // something changes that screen.
  let pageBytes = null;

  // Until storefront.js takes over: keys as xterm.js would send them, the cursor keys in the mode the shop set.
  function keyBytes(event) {
    if (event.isComposing || event.metaKey) return null;
    // The cursor keys' mode is the one the page's bytes set.
    if (pageBytes) showOnPreview(new Uint8Array(0));
    const cursor = preview && preview.state.applicationCursor ? "\x1bO" : "\x1b[";
    const named = {
      Enter: "\r", Backspace: "\x7f", Tab: event.shiftKey ? "\x1b[Z" : "\t", Escape: "\x1b",
      ArrowUp: cursor + "A", ArrowDown: cursor + "B", ArrowRight: cursor + "C", ArrowLeft: cursor + "D",
      Home: cursor + "H", End: cursor + "F", PageUp: "\x1b[5~", PageDown: "\x1b[6~", Delete: "\x1b[3~", Insert: "\x1b[2~",
    };
    let bytes = named[event.key];
    if (bytes === undefined && [...event.key].length === 1) {
      const code = event.key.toUpperCase().charCodeAt(0);
      bytes = event.ctrlKey ? (code >= 64 && code <= 95 ? String.fromCharCode(code & 31) : null) : event.key;
    }
    if (bytes === undefined || bytes === null) return null;
    return event.altKey && bytes !== "\x1b" ? "\x1b" + bytes : bytes;
  }
  const encoder = new TextEncoder();
  function pressed(event) {
    // A link or button of the page's own (the account bar's) keeps its keys.
    if (event.target && event.target.closest && event.target.closest("a, button, input, textarea, select")) return;
    const bytes = keyBytes(event);
    if (bytes === null || socket.readyState > WebSocket.OPEN) return;
    event.preventDefault();
    // Pressed before the socket is open (the page painted the shop first): held, and sent in order at the open.
    if (socket.readyState === WebSocket.CONNECTING) typedAhead.push(bytes);
    else socket.send(encoder.encode(bytes));
  }
  const typedAhead = [];
  socket.addEventListener("open", function () {
    for (const bytes of typedAhead.splice(0)) socket.send(encoder.encode(bytes));
  }, { once: true });
  window.addEventListener("keydown", pressed);

  const early = {
    socket: socket, columns: columns, rows: rows, messages: [], closed: null, preview: null,
    /** Called by storefront.js as it takes the socket: the preview draws nothing more, sends no more keys and no
     * longer follows the window. */
    release() { window.removeEventListener("keydown", pressed); window.removeEventListener("resize", resized); released = true; },
  };
  let framed = false, released = false;
  function draw(event) {
    early.messages.push(event);
    if (released || typeof event.data === "string" || typeof window.storefrontPreview !== "function") return;
    showOnPreview(new Uint8Array(event.data));
  }
  // Draws `bytes` with the preview, made at the first (after the page's own bytes, where its first screen showed them).
  function showOnPreview(bytes) {
    if (!preview) {
      if (!(cell.width > 0) && !measureCell()) return;
      preview = early.preview = window.storefrontPreview(box, early.columns, early.rows, cell);
    }
    if (pageBytes) {
      const own = pageBytes;
      pageBytes = null;
      preview.write(own);
      firstScreen.remove();
    }
    // The shop's first messages set the terminal up; the first frame is the first that shows text.
    if (!preview.write(bytes) || framed) return;
    framed = true;
    afterPaint(loadTerminal);
  }
  // After the frame now being made is painted: a task queued in the frame runs after its paint.
  function afterPaint(work) { window.requestAnimationFrame(function () { window.setTimeout(work, 0); }); }
  socket.onmessage = draw;
  // The page's own first frame, as if it were the socket's first message (the socket sends what follows it). Drawn
  // only at the size it was made for: at another, the session redraws whole once the socket says the size.
  if (started && started.text.length > 0) {
    const text = window.atob(started.text);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    const fits = Number(started.dataset.columns) === columns && Number(started.dataset.rows) === rows;
    if (fits && measureLater) {
      // Already on the screen as HTML: kept for the preview, or for xterm.js, which removes the screen as the preview.
      // Once it is painted, the window is measured: a tab resized since its last visit tells the session its size.
      early.messages.push({ data: bytes.buffer });
      pageBytes = bytes;
      framed = true;
      afterPaint(remeasure);
      early.preview = {
        text() { return Array.from(firstScreen.children, (row) => row.textContent.replace(/\s+$/, "")); },
        remove() { firstScreen.remove(); },
      };
      afterPaint(loadTerminal);
    } else if (fits) draw({ data: bytes.buffer });
    else early.messages.push({ data: bytes.buffer });
  }
  if (firstScreen && !pageBytes) firstScreen.remove();
  socket.onclose = function (event) { early.closed = event; loadTerminal(); };

  // Until storefront.js takes over (or should xterm.js never come), the page's own terminal follows the window: the
  // session is told the new size, and the preview starts again at it, as the shop draws its whole screen again.
  let measuring = false, sizeWaits = false;
  function sendSize() {
    sizeWaits = false;
    socket.send(JSON.stringify({ type: "resize", columns: early.columns, rows: early.rows }));
  }
  function remeasure() {
    measuring = false;
    const size = measure();
    if (released || (size.columns === early.columns && size.rows === early.rows)) return;
    early.columns = size.columns;
    early.rows = size.rows;
    window.storefrontRemember(size.columns, size.rows);
    if (pageBytes) showOnPreview(new Uint8Array(0));
    if (preview) preview.resize(size.columns, size.rows);
    if (socket.readyState === WebSocket.OPEN) sendSize();
    else if (socket.readyState === WebSocket.CONNECTING && !sizeWaits) {
      // Once, however many resizes come meanwhile: the size sent is the one at the open.
      sizeWaits = true;
      socket.addEventListener("open", sendSize, { once: true });
    }
  }
  function resized() {
    if (measuring) return;
    measuring = true;
    window.requestAnimationFrame(remeasure);
  }
  window.addEventListener("resize", resized);
  window.setTimeout(loadTerminal, 250);
  window.storefrontEarly = early;
})();
