/* Saved views (templates/accounts/_header.html): the header's menu saves the live view's
 * filters as they are now (live.js keeps them in the address as they change), and closes
 * with Escape, giving the focus back to its button. */
(() => {
  "use strict";

  const menu = document.getElementById("views-menu");
  if (!menu) return;
  const save = document.getElementById("save-view");
  if (save) {
    save.addEventListener("submit", () => {
      save.elements.query.value = location.search.replace(/^\?/, "");
    });
  }
  menu.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && menu.open) {
      menu.open = false;
      menu.querySelector("summary").focus();
    }
  });
  document.addEventListener("click", (e) => {
    if (menu.open && !menu.contains(e.target)) menu.open = false;
  });
})();
