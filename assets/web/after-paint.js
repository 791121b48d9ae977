// Storefront in a browser, inline in a page that came with its first screen written as HTML: that screen is painted
// before any script runs, so the page's first scripts (preview.js, then connect.js), named by this script's
// data-scripts, are loaded only after it is painted. Should one not load, the status box says so and offers a reload.
"use strict";

(function () {
  const addresses = (document.currentScript.dataset.scripts || "").split(" ").filter(Boolean);
  function failed() {
    const status = document.getElementById("status");
    if (!status) return;
    document.getElementById("status-text").textContent = status.dataset.lost;
    document.getElementById("reconnect").onclick = function () { window.location.reload(); };
    status.hidden = false;
  }
  // A task queued in an animation frame runs after that frame is painted.
  window.requestAnimationFrame(function () {
    window.setTimeout(function () {
      for (const address of addresses) {
        const script = document.createElement("script");
        script.src = address;
        // Run in the order named, as the page's own would have.
        script.async = false;
        script.onerror = failed;
        document.body.appendChild(script);
      }
    }, 0);
  });
})();
