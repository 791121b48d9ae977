// Storefront in a browser, inline in the page: the shop's first screens drawn as text from its bytes while xterm.js
// loads, so the shop shows as soon as its first frame arrives. It reads what the shop writes to an xterm-256color
// terminal (cursor moves, erases, SGR colours, scroll regions, the line-drawing set) and skips the rest; xterm.js is
// given every byte again when it takes over, so nothing the preview leaves out is lost.
"use strict";

/** A screen of `columns` x `rows` cells drawn over `box` at `cell` pixels a cell; `write` takes the shop's bytes. */
window.storefrontPreview = function (box, columns, rows, cell) {
  // xterm.js 4's own defaults and the page's theme, so the two draw the same colours.
  const base = ["#2e3436", "#cc0000", "#4e9a06", "#c4a000", "#3465a4", "#75507b", "#06989a", "#d3d7cf",
    "#555753", "#ef2929", "#8ae234", "#fce94f", "#729fcf", "#ad7fa8", "#34e2e2", "#eeeeec"];
  const levels = [0, 95, 135, 175, 215, 255];
  const hex = (r, g, b) => "#" + [r, g, b].map((v) => v.toString(16).padStart(2, "0")).join("");
  const palette = base.slice();
  for (let i = 16; i < 232; i++) palette.push(hex(levels[((i - 16) / 36) | 0], levels[(((i - 16) / 6) | 0) % 6], levels[(i - 16) % 6]));
  for (let i = 0; i < 24; i++) palette.push(hex(8 + i * 10, 8 + i * 10, 8 + i * 10));
  const foreground = "#e6e6e6", background = "#101010";
  const lineDrawing = { j: "┘", k: "┐", l: "┌", m: "└", n: "┼", q: "─", t: "├", u: "┤", v: "┴", w: "┬", x: "│",
    a: "▒", "`": "◆", f: "°", g: "±", "~": "·", y: "≤", z: "≥", "{": "π", "|": "≠", "}": "£", o: "⎺", s: "⎽" };

  const plain = { fg: null, bg: null, bold: false, dim: false, italic: false, underline: false, inverse: false, hidden: false };
  const blank = () => ({ text: " ", style: plain, wide: false });
  const screen = [];
  // The screen blank at its size (at the start, and after a resize).
  function blankScreen() {
    screen.length = 0;
    for (let row = 0; row < rows; row++) screen.push(Array.from({ length: columns }, blank));
  }
  blankScreen();
  let x = 0, y = 0, style = plain, wrapPending = false, graphicSet = false, last = " ";
  let top = 0, bottom = rows - 1, saved = null, pending = "", shown = false;
  // Inside a frame the shop marks as one (synchronized output, DEC mode 2026): drawn at its end, not in pieces as its
  // bytes come, unless the end is this long in coming (as terminals that know the mode do).
  let synchronized = false, frameTimer = 0;
  const frameWait = 150;
  const decoder = new TextDecoder();
  const dirty = new Set();
  const state = { applicationCursor: false };

  const layer = document.createElement("div");
  const padding = window.getComputedStyle(box);
  Object.assign(layer.style, {
    position: "absolute", left: padding.paddingLeft, top: padding.paddingTop, zIndex: "5", overflow: "hidden",
    background: background, color: foreground,
    fontFamily: box.dataset.font, fontSize: "15px", lineHeight: cell.height + "px", whiteSpace: "pre",
  });
  layer.setAttribute("aria-hidden", "true");
  layer.className = "storefront-preview";
  const lines = [];
  // The layer at the screen's size, a line element for each row (at the start, and after a resize).
  function fitLayer() {
    Object.assign(layer.style, { width: columns * cell.width + "px", height: rows * cell.height + "px" });
    for (const line of lines.splice(rows)) line.remove();
    for (let row = lines.length; row < rows; row++) {
      const line = document.createElement("div");
      Object.assign(line.style, { position: "absolute", left: "0", top: row * cell.height + "px", height: cell.height + "px" });
      layer.appendChild(line);
      lines.push(line);
    }
  }
  fitLayer();
  box.appendChild(layer);

  const clamp = (value, low, high) => Math.max(low, Math.min(high, value));
  // Erased cells take the current background (as xterm.js does); one style object a background keeps their runs whole.
  const backgrounds = new Map();
  function erased() {
    if (style.bg === null) return { text: " ", style: plain, wide: false };
    if (!backgrounds.has(style.bg)) backgrounds.set(style.bg, Object.assign({}, plain, { bg: style.bg }));
    return { text: " ", style: backgrounds.get(style.bg), wide: false };
  }
  function erase(row, from, to) {
    for (let column = from; column < to; column++) screen[row][column] = erased();
    dirty.add(row);
  }
  function scroll(from, to, count) {
    // Positive: up (lines leave at `from`); negative: down. Uncovered lines are erased.
    for (let n = 0; n < Math.abs(count); n++) {
      const fresh = Array.from({ length: columns }, erased);
      if (count > 0) { screen.splice(from, 1); screen.splice(to, 0, fresh); } else { screen.splice(to, 1); screen.splice(from, 0, fresh); }
    }
    for (let row = from; row <= to; row++) dirty.add(row);
  }
  function lineFeed() {
    if (y === bottom) scroll(top, bottom, 1); else y = clamp(y + 1, 0, rows - 1);
  }
  function print(text) {
    if (graphicSet && lineDrawing[text]) text = lineDrawing[text];
    const code = text.codePointAt(0);
    const wide = (code >= 0x1100 && code <= 0x115f) || (code >= 0x2e80 && code <= 0xa4cf) || (code >= 0xac00 && code <= 0xd7a3) ||
      (code >= 0xf900 && code <= 0xfaff) || (code >= 0xfe30 && code <= 0xfe4f) || (code >= 0xff00 && code <= 0xff60) ||
      (code >= 0xffe0 && code <= 0xffe6) || (code >= 0x1f300 && code <= 0x1f64f) || (code >= 0x1f900 && code <= 0x1f9ff) ||
      (code >= 0x20000 && code <= 0x3fffd);
    if (wrapPending || (wide && x === columns - 1)) { x = 0; lineFeed(); wrapPending = false; }
    screen[y][x] = { text: text, style: style, wide: wide };
    if (wide) screen[y][x + 1] = { text: "", style: style, wide: false };
    dirty.add(y);
    last = text;
    if (text !== " ") shown = true;
    const next = x + (wide ? 2 : 1);
    if (next >= columns) wrapPending = true; else x = next;
  }
  function select(parameters) {
    const p = parameters.length ? parameters : [0];
    for (let i = 0; i < p.length; i++) {
      const n = p[i] || 0;
      const s = Object.assign({}, style);
      if (n === 0) { style = plain; continue; }
      if (n === 1) s.bold = true; else if (n === 2) s.dim = true; else if (n === 3) s.italic = true;
      else if (n === 4) s.underline = true; else if (n === 7) s.inverse = true; else if (n === 8) s.hidden = true;
      else if (n === 22) { s.bold = false; s.dim = false; } else if (n === 23) s.italic = false;
      else if (n === 24) s.underline = false; else if (n === 27) s.inverse = false; else if (n === 28) s.hidden = false;
      else if (n >= 30 && n <= 37) s.fg = n - 30; else if (n === 39) s.fg = null;
      else if (n >= 40 && n <= 47) s.bg = n - 40; else if (n === 49) s.bg = null;
      else if (n >= 90 && n <= 97) s.fg = n - 82; else if (n >= 100 && n <= 107) s.bg = n - 92;
      else if (n === 38 || n === 48) {
        let colour = null;
        if (p[i + 1] === 5) { colour = clamp(p[i + 2] || 0, 0, 255); i += 2; }
        else if (p[i + 1] === 2) { colour = hex(clamp(p[i + 2] || 0, 0, 255), clamp(p[i + 3] || 0, 0, 255), clamp(p[i + 4] || 0, 0, 255)); i += 4; }
        if (n === 38) s.fg = colour; else s.bg = colour;
      }
      style = s;
    }
  }
  function mode(parameters, set) {
    for (const n of parameters) {
      if (n === 1) state.applicationCursor = set;
      else if (n === 47 || n === 1047 || n === 1049) { for (let row = 0; row < rows; row++) erase(row, 0, columns); }
      else if (n === 2026 && set) { synchronized = true; if (!frameTimer) frameTimer = window.setTimeout(endFrame, frameWait); }
      else if (n === 2026) endFrame();
    }
  }
  function control(body, final) {
    const isPrivate = body[0] === "?";
    const parameters = (isPrivate ? body.slice(1) : body).split(/[;:]/).filter((p) => p !== "").map((p) => parseInt(p, 10) || 0);
    const n = Math.max(1, parameters[0] || 0);
    if (isPrivate) { if (final === "h" || final === "l") mode(parameters, final === "h"); return; }
    if (!/^[0-9;:]*$/.test(body)) return;
    if (final !== "m" && final !== "b") wrapPending = false;
    switch (final) {
      case "H": case "f": y = clamp((parameters[0] || 1) - 1, 0, rows - 1); x = clamp((parameters[1] || 1) - 1, 0, columns - 1); break;
      case "A": y = clamp(y - n, 0, rows - 1); break;
      case "B": case "e": y = clamp(y + n, 0, rows - 1); break;
      case "C": case "a": x = clamp(x + n, 0, columns - 1); break;
      case "D": x = clamp(x - n, 0, columns - 1); break;
      case "E": y = clamp(y + n, 0, rows - 1); x = 0; break;
      case "F": y = clamp(y - n, 0, rows - 1); x = 0; break;
      case "G": case "`": x = clamp(n - 1, 0, columns - 1); break;
      case "d": y = clamp(n - 1, 0, rows - 1); break;
      case "J": {
        const which = parameters[0] || 0;
        if (which === 0) { erase(y, x, columns); for (let row = y + 1; row < rows; row++) erase(row, 0, columns); }
        else if (which === 1) { for (let row = 0; row < y; row++) erase(row, 0, columns); erase(y, 0, x + 1); }
        else for (let row = 0; row < rows; row++) erase(row, 0, columns);
        break;
      }
      case "K": {
        const which = parameters[0] || 0;
        erase(y, which === 0 ? x : 0, which === 1 ? x + 1 : columns);
        break;
      }
      case "X": erase(y, x, Math.min(columns, x + n)); break;
      case "b": for (let i = 0; i < Math.min(n, columns * rows); i++) print(last); break;
      case "m": select(parameters); break;
      case "r": top = clamp((parameters[0] || 1) - 1, 0, rows - 1); bottom = clamp((parameters[1] || rows) - 1, top, rows - 1); x = 0; y = 0; break;
      case "S": scroll(top, bottom, Math.min(n, rows)); break;
      case "T": scroll(top, bottom, -Math.min(n, rows)); break;
      case "L": if (y >= top && y <= bottom) scroll(y, bottom, -Math.min(n, rows)); break;
      case "M": if (y >= top && y <= bottom) scroll(y, bottom, Math.min(n, rows)); break;
      case "@": screen[y].splice(x, 0, ...Array.from({ length: Math.min(n, columns) }, erased)); screen[y].length = columns; dirty.add(y); break;
      case "P": screen[y].splice(x, Math.min(n, columns - x)); while (screen[y].length < columns) screen[y].push(erased()); dirty.add(y); break;
    }
  }
  function escape(text, i) {
    // Returns the index after the sequence at `i`, or -1 where the sequence is not all here yet.
    const next = text[i + 1];
    if (next === undefined) return -1;
    if (next === "[") {
      for (let j = i + 2; j < text.length; j++) {
        const code = text.charCodeAt(j);
        if (code >= 0x40 && code <= 0x7e) { control(text.slice(i + 2, j), text[j]); return j + 1; }
      }
      return -1;
    }
    if ("]P_^X".includes(next)) {
      // A string (a title, a graphics command): skipped to its BEL or ST.
      for (let j = i + 2; j < text.length; j++) {
        if (text[j] === "\x07") return j + 1;
        if (text[j] === "\x1b" && j + 1 < text.length) return j + 2;
        if (text[j] === "\x1b") return -1;
      }
      return -1;
    }
    if ("()*+".includes(next)) {
      if (i + 2 >= text.length) return -1;
      if (next === "(") graphicSet = text[i + 2] === "0";
      return i + 3;
    }
    wrapPending = false;
    if (next === "7") saved = { x: x, y: y, style: style, graphicSet: graphicSet };
    else if (next === "8" && saved) ({ x, y, style, graphicSet } = saved);
    else if (next === "D") lineFeed();
    else if (next === "E") { x = 0; lineFeed(); }
    else if (next === "M") { if (y === top) scroll(top, bottom, -1); else y = clamp(y - 1, 0, rows - 1); }
    return i + 2;
  }
  function parse(text) {
    let i = 0;
    while (i < text.length) {
      const character = text[i];
      const code = text.charCodeAt(i);
      if (character === "\x1b") {
        const after = escape(text, i);
        if (after < 0) { pending = text.slice(i); return; }
        i = after;
      } else if (code < 0x20 || code === 0x7f) {
        if (character === "\r") { x = 0; wrapPending = false; }
        else if (character === "\n" || character === "\v" || character === "\f") { lineFeed(); wrapPending = false; }
        else if (character === "\b") { x = Math.max(0, x - 1); wrapPending = false; }
        else if (character === "\t") x = Math.min(columns - 1, (((x / 8) | 0) + 1) * 8);
        i++;
      } else {
        const point = text.codePointAt(i);
        const width = point > 0xffff ? 2 : 1;
        print(text.slice(i, i + width));
        i += width;
      }
    }
  }
  function colour(value, bold) {
    if (value === null) return null;
    if (typeof value === "string") return value;
    return palette[bold && value < 8 ? value + 8 : value];
  }
  function styled(span, s) {
    let fg = colour(s.fg, s.bold) || foreground, bg = colour(s.bg, false) || background;
    if (s.inverse) [fg, bg] = [bg, fg];
    span.style.color = s.hidden ? "transparent" : fg;
    if (bg !== background) span.style.background = bg;
    if (s.bold) span.style.fontWeight = "bold";
    if (s.italic) span.style.fontStyle = "italic";
    if (s.underline) span.style.textDecoration = "underline";
    if (s.dim) span.style.opacity = "0.5";
  }
  // The frame ends (its mark came, or its wait passed): what it changed is drawn.
  function endFrame() {
    window.clearTimeout(frameTimer);
    frameTimer = 0;
    synchronized = false;
    draw();
  }
  function draw() {
    // Each run of one style is placed at its own column, so a glyph from a fallback font shifts its run only.
    for (const row of dirty) {
      const line = lines[row], cells = screen[row];
      line.textContent = "";
      for (let start = 0; start < columns;) {
        let end = start + 1;
        while (end < columns && cells[end].style === cells[start].style && !cells[end].wide && !cells[start].wide) end++;
        const text = cells.slice(start, end).map((c) => c.text).join("");
        if (text.trim() !== "" || cells[start].style.bg !== null || cells[start].style.inverse) {
          const span = document.createElement("span");
          span.textContent = text;
          Object.assign(span.style, { position: "absolute", left: start * cell.width + "px" });
          if (cells[start].wide) Object.assign(span.style, { width: 2 * cell.width + "px", display: "inline-block" });
          styled(span, cells[start].style);
          line.appendChild(span);
        }
        end = cells[start].wide ? start + 2 : end;
        start = end;
      }
    }
    dirty.clear();
  }

  return {
    state: state,
    /** Reads the shop's bytes and draws the rows they changed (a marked frame at its end); answers whether the
     * screen shows any text yet. */
    write(bytes) {
      const text = pending + decoder.decode(bytes, { stream: true });
      pending = "";
      parse(text);
      if (synchronized) return false;
      draw();
      return shown;
    },
    /** Starts again at `newColumns` x `newRows`, blank: the shop draws its whole screen again at a new size. */
    resize(newColumns, newRows) {
      columns = newColumns;
      rows = newRows;
      blankScreen();
      x = 0; y = 0; top = 0; bottom = rows - 1; wrapPending = false; saved = null;
      fitLayer();
      for (let row = 0; row < rows; row++) dirty.add(row);
      draw();
    },
    /** The rows as text, for the tests; null inside a frame, which is not on the screen yet. */
    text() { return synchronized ? null : screen.map((cells) => cells.map((c) => c.text).join("").replace(/\s+$/, "")); },
    remove() { layer.remove(); },
  };
};
