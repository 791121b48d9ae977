// Storefront in a browser, first of its scripts: opens the shop's socket while xterm.js is still loading, so the
// session starts meanwhile. The terminal's size is measured as xterm.js's fit will measure it (a run of W's in the
// terminal's font, the box's size less the scroll bar); storefront.js takes the socket over, with what came on it,
// and sends a resize where xterm.js's fit differs.
"use strict";

(function () {
  const box = document.getElementById("terminal");
  if (!box || typeof WebSocket !== "function") return;
  const probe = document.createElement("span");
  probe.textContent = "W".repeat(32);
  const scroller = document.createElement("div");
  // Styles set through CSSOM, which the page's style-src 'self' allows.
  Object.assign(probe.style, {
    position: "absolute", visibility: "hidden", whiteSpace: "pre", lineHeight: "normal", fontSize: "15px",
    fontFamily: box.dataset.font,
  });
  Object.assign(scroller.style, { position: "absolute", visibility: "hidden", overflowY: "scroll", width: "60px", height: "60px" });
  box.appendChild(probe);
  box.appendChild(scroller);
  const cellWidth = probe.getBoundingClientRect().width / 32;
  const cellHeight = Math.ceil(probe.getBoundingClientRect().height);
  // xterm.js 4.14's first fit takes 15 pixels for the scroll bar where the page's is an overlay (0 wide).
  const scrollBar = scroller.offsetWidth - scroller.clientWidth || 15;
  box.removeChild(probe);
  box.removeChild(scroller);
  if (!(cellWidth > 0 && cellHeight > 0)) return;
  const style = window.getComputedStyle(box);
  const columns = Math.max(2, Math.floor((Math.max(0, parseInt(style.width, 10)) - scrollBar) / cellWidth));
  const rows = Math.max(1, Math.floor(parseInt(style.height, 10) / cellHeight));

  const url = new URL("session", window.location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.search = "?columns=" + columns + "&rows=" + rows;
  const socket = new WebSocket(url.href);
  socket.binaryType = "arraybuffer";
  const early = { socket: socket, columns: columns, rows: rows, messages: [], closed: null };
  socket.onmessage = function (event) { early.messages.push(event); };
  socket.onclose = function (event) { early.closed = event; };
  window.storefrontEarly = early;
})();
