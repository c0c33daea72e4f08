/* The header's menu on a phone or a tablet: the button opens and closes the navigation,
 * search and sign-out (static/css/dashboard.css folds them under 900 px). */
(() => {
  "use strict";
  const button = document.querySelector(".menu-button");
  const bar = button?.closest(".topbar");
  if (!bar) return;
  function set(open) {
    button.setAttribute("aria-expanded", String(open));
    bar.toggleAttribute("data-open", open);
  }
  button.addEventListener("click", () => set(button.getAttribute("aria-expanded") !== "true"));
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && bar.hasAttribute("data-open")) {
      set(false);
      button.focus();
    }
  });
})();
