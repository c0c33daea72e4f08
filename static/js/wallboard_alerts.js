/* The wallboard's alerts: a banner with the most severe alert's sentence, and the tiles
 * it is about flashing (templates/alerts/_board.html names them in `data-flash`). The
 * banner is replaced by id when a push carries it; after each pass of pushes (the live modules'
 * `live:applied`, in the same frame, before it is painted) the tiles are flashed again,
 * since a patched tile takes the server's attributes; and with the one-second tick.
 */
(() => {
  "use strict";

  // The tiles a selector names. A list of ids (most banners: one per agent of a group) is
  // looked up id by id: matched as a selector list, it would test every element of a
  // 1,000-tile page against every id, at each pass of pushes.
  const ID = /^#[A-Za-z][\w-]*$/;
  function named(selector) {
    const parts = selector.split(",").map((part) => part.trim());
    if (parts.every((part) => ID.test(part))) {
      return parts.map((part) => document.getElementById(part.slice(1))).filter(Boolean);
    }
    try {
      return document.querySelectorAll(selector);
    } catch {
      return []; // a selector this browser does not take: the banner still shows
    }
  }

  const flashing = document.getElementsByClassName("alert-flash");
  function flash() {
    const banner = document.getElementById("wb-alert-banner");
    const selector = banner?.dataset.flash || "";
    const wanted = new Set(selector ? named(selector) : []);
    for (const elt of [...flashing]) {
      if (!wanted.has(elt)) {
        elt.classList.remove("alert-flash");
        delete elt.dataset.alertLevel;
      }
    }
    const level = banner?.dataset.level || "warn";
    for (const elt of wanted) {
      elt.classList.add("alert-flash");
      if (elt.dataset.alertLevel !== level) elt.dataset.alertLevel = level;
    }
  }

  document.addEventListener("live:applied", flash);
  document.addEventListener("live:tick", flash); // in the tick's pass: no frame of its own
  flash();
})();
