/* The wallboard's alerts: a banner with the most severe alert's sentence, and the tiles
 * it is about flashing (templates/alerts/_board.html names them in `data-flash`). The
 * banner is replaced by id when a push carries it; after each pass of pushes (the live modules'
 * `live:applied`, in the same frame, before it is painted) the tiles are flashed again,
 * since a patched tile takes the server's attributes; and once a second.
 */
(() => {
  "use strict";

  function flash() {
    const banner = document.getElementById("wb-alert-banner");
    const wanted = new Set();
    const selector = banner?.dataset.flash || "";
    if (selector) {
      try {
        for (const elt of document.querySelectorAll(selector)) wanted.add(elt);
      } catch {
        /* a selector this browser does not take: the banner still shows */
      }
    }
    for (const elt of document.querySelectorAll(".alert-flash")) {
      if (!wanted.has(elt)) {
        elt.classList.remove("alert-flash");
        delete elt.dataset.alertLevel;
      }
    }
    for (const elt of wanted) {
      elt.classList.add("alert-flash");
      elt.dataset.alertLevel = banner.dataset.level || "warn";
    }
  }

  document.addEventListener("live:applied", flash);
  setInterval(flash, 1000);
  flash();
})();
