/* Saved views (templates/accounts/_header.html): the header's menu saves the live view's
 * filters as they are now (static/js/live/ keeps them in the address as they change) with the
 * teams shown, and closes with Escape, giving the focus back to its button. The live view's
 * "My floor · Whole floor" links keep the other filters as they are now. */
(() => {
  "use strict";

  // The address with the page's teams (the server's `#filters[data-teams]`) written in.
  function withTeams(teams) {
    const params = new URLSearchParams(location.search);
    if (teams !== undefined) {
      params.delete("team");
      params.set("teams", teams);
    } else if (!params.has("teams")) {
      const shown = document.getElementById("filters")?.dataset.teams;
      if (shown !== undefined) params.set("teams", shown || "all");
    }
    return params.toString();
  }
  for (const link of document.querySelectorAll(".scope-links a[data-teams]")) {
    link.addEventListener("click", (e) => {
      e.preventDefault();
      location.assign(`?${withTeams(link.dataset.teams)}`);
    });
  }

  const menu = document.getElementById("views-menu");
  if (!menu) return;
  const save = document.getElementById("save-view");
  if (save) {
    save.addEventListener("submit", () => {
      save.elements.query.value = withTeams();
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
