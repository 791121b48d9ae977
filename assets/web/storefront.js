// Storefront in a browser: connects the terminal on the page to a shop session over a WebSocket.
// Binary messages are the terminal's bytes both ways; text messages are JSON: the page sends
// {"type":"resize","columns":C,"rows":R}, the server sends {"type":"ended","text":"why"} before it closes.
"use strict";

(function () {
  const status = document.getElementById("status");
  const statusText = document.getElementById("status-text");
  const reconnect = document.getElementById("reconnect");
  const encoder = new TextEncoder();

  // xterm.js's DOM renderer writes its colours and cell size into <style> elements, which the page's style-src 'self'
  // refuses. A constructed style sheet is CSSOM, which the policy allows: each <style> the page asks for is an inert
  // element whose text goes to a sheet of its own.
  const createElement = document.createElement.bind(document);
  document.createElement = function (name, options) {
    if (String(name).toLowerCase() !== "style") return createElement(name, options);
    const sheet = new CSSStyleSheet();
    document.adoptedStyleSheets = document.adoptedStyleSheets.concat([sheet]);
    const holder = createElement("template");
    Object.defineProperty(holder, "textContent", { get() { return ""; }, set(text) { sheet.replaceSync(text); } });
    return holder;
  };

  const box = document.getElementById("terminal");
  const terminal = new Terminal({
    cursorBlink: true,
    // The page names the font once, for connect.js's measure too.
    fontFamily: box.dataset.font,
    fontSize: 15,
    scrollback: 0,
    allowProposedApi: true,  // xterm.js 4 keeps the buffer API, which window.storefront readers use, behind this
    // Announces what changes, so a screen reader reads the shop as it moves.
    screenReaderMode: true,
    // Rows as elements, not a canvas: xterm.js 4's canvas renderer draws each new glyph and colour into its atlas and
    // reads it back, 255 ms of the first frame in Chromium (docs/BENCHMARKS.md, "Where the first frame goes").
    rendererType: "dom",
    theme: { background: "#101010", foreground: "#e6e6e6" },
  });
  const fit = new FitAddon.FitAddon();
  terminal.loadAddon(fit);
  terminal.open(box);
  // For automation (the tests read the screen through it) and the curious; it holds nothing secret.
  window.storefront = { terminal: terminal };
  fit.fit();

  let socket = null;
  // The size the socket's session was started at, to tell whether the terminal's differs once it is open.
  let socketSize = null;
  let endedText = null;
  // Set when the shop ended the tab's sign-in: Reconnect loads the page again, so its account bar is the new one.
  let signedOut = false;

  function show(text, offerReconnect) {
    statusText.textContent = text;
    reconnect.hidden = !offerReconnect;
    status.hidden = false;
    if (offerReconnect) reconnect.focus();
  }

  function received(event) {
    if (typeof event.data === "string") {
      try {
        const message = JSON.parse(event.data);
        if (message.type === "ended") { endedText = message.text; signedOut = message.signedOut === true; }
      } catch (error) { /* not ours: ignore */ }
      return;
    }
    terminal.write(new Uint8Array(event.data));
  }

  function closed(event) {
    socket = null;
    if (endedText) return show(endedText, true);
    // The page's words come in the visitor's language, on the status box's data attributes.
    if (event.code === 1009) return show(status.dataset.tooMuch, true);
    const lost = status.dataset.lost;
    show((event.reason ? lost.replace(/[.。]$/, ": " + event.reason) : lost) + " " + status.dataset.kept, true);
  }

  // Once open: the keys go to the terminal, and the session learns the terminal's size where it was started at another.
  function opened() {
    terminal.focus();
    if (socketSize.columns !== terminal.cols || socketSize.rows !== terminal.rows) sendSize();
  }

  function sendSize() {
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    socketSize = { columns: terminal.cols, rows: terminal.rows };
    socket.send(JSON.stringify({ type: "resize", columns: terminal.cols, rows: terminal.rows }));
    // The next visit's session starts at this size (connect.js's cookie).
    if (window.storefrontRemember) window.storefrontRemember(terminal.cols, terminal.rows);
  }

  function wire(opening, size) {
    socket = opening;
    socketSize = size;
    socket.onopen = opened;
    socket.onmessage = received;
    socket.onclose = closed;
  }

  function connect() {
    status.hidden = true;
    endedText = null;
    terminal.reset();
    const opening = new WebSocket(window.storefrontSocketURL(terminal.cols, terminal.rows, null));
    opening.binaryType = "arraybuffer";
    wire(opening, { columns: terminal.cols, rows: terminal.rows });
  }

  // The socket connect.js opened while this loaded, with what came on it meanwhile; the preview that drew it stays
  // over the terminal until xterm.js has drawn the same bytes (or half a second, should it draw nothing new).
  function adopt(early) {
    const preview = early.preview;
    early.release();
    // xterm.js 4.14's first fit leaves room for a scroll bar that a terminal without scrollback never shows, so it
    // may come out a column narrower than connect.js measured: that measure is kept, and the session needs no resize.
    if (early.columns - terminal.cols === 1 && early.rows === terminal.rows) terminal.resize(early.columns, early.rows);
    wire(early.socket, { columns: early.columns, rows: early.rows });
    for (const event of early.messages) received(event);
    if (preview) {
      const gone = window.setTimeout(function () { preview.remove(); }, 500);
      terminal.write("", function () {
        const drawn = terminal.onRender(function () { drawn.dispose(); window.clearTimeout(gone); preview.remove(); });
      });
    }
    if (early.closed) return closed(early.closed);
    if (early.socket.readyState === WebSocket.OPEN) opened();
  }

  function send(bytes) {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(bytes);
  }

  terminal.onData(function (data) { send(encoder.encode(data)); });
  // Mouse reports in the X10 encoding are bytes, not text.
  terminal.onBinary(function (data) {
    const bytes = new Uint8Array(data.length);
    for (let i = 0; i < data.length; i++) bytes[i] = data.charCodeAt(i) & 0xff;
    send(bytes);
  });
  terminal.onResize(sendSize);

  let pending = false;
  window.addEventListener("resize", function () {
    if (pending) return;
    pending = true;
    window.requestAnimationFrame(function () { pending = false; fit.fit(); });
  });
  reconnect.addEventListener("click", function () { if (signedOut) window.location.reload(); else connect(); });
  const early = window.storefrontEarly;
  window.storefrontEarly = undefined;
  if (early) adopt(early); else connect();
})();
