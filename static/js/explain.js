/* Explain panels (templates/figures/_explain.html): the popover attribute opens and closes
 * them with no script. Where a page's figures are pushed, the pushed fragments carry each
 * figure's newest inputs in a hidden [data-why] element; this copies them into the panel
 * when it opens, and again while it is open when a push replaces them.
 */
(() => {
  "use strict";

  function fill(panel) {
    for (const out of panel.querySelectorAll("[data-from]")) {
      const source = document.querySelector(`[data-why="${CSS.escape(out.dataset.from)}"]`);
      if (source && out.innerHTML !== source.innerHTML) {
        out.replaceChildren(...source.cloneNode(true).childNodes);
      }
    }
  }

  document.addEventListener(
    "toggle",
    (e) => {
      if (e.newState === "open" && e.target.classList?.contains("explain")) fill(e.target);
    },
    true, // toggle does not bubble
  );
  const fillOpen = () => {
    for (const panel of document.querySelectorAll(".explain:popover-open")) fill(panel);
  };
  document.addEventListener("htmx:oobAfterSwap", fillOpen);
  fillOpen(); // a panel opened before this deferred script ran
})();
