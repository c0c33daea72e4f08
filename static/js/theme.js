/* The header's theme choice (templates/accounts/_header.html): applied at once, kept for
 * the person on the server (dashboard/accounts/views.py), without leaving the page. Without
 * this script the form posts and comes back; base.html sets data-theme from the setting,
 * so the page is drawn in its theme from the first frame. */
(() => {
  "use strict";

  const form = document.getElementById("theme-form");
  if (!form) return;
  const choice = form.elements.theme;
  const meta = document.querySelector('meta[name="color-scheme"]');
  form.querySelector("button[type=submit]").hidden = true;

  function apply(theme) {
    const root = document.documentElement;
    if (theme === "light" || theme === "dark") {
      root.dataset.theme = theme;
      if (meta) meta.content = theme;
    } else {
      delete root.dataset.theme;
      if (meta) meta.content = "light dark";
    }
  }

  // One request at a time, in order: arrow keys through the list send one per step, and
  // the last choice must be the one kept.
  let queue = Promise.resolve();
  choice.addEventListener("change", () => {
    const before = document.documentElement.dataset.theme || "system";
    apply(choice.value);
    const body = new FormData(form);
    queue = queue.then(async () => {
      try {
        const r = await fetch(form.action, {
          method: "POST",
          body,
          headers: { "X-Theme-Request": "1" },
          credentials: "same-origin",
        });
        if (!r.ok) throw new Error(await r.text());
        form.dataset.kept = body.get("theme");
      } catch (_err) {
        apply(before); // not kept: show what is kept
        choice.value = before;
      }
    });
  });
})();
