/* Keyboard and screen readers, on every page.
 *
 * - One polite live region (#announcer, in base.html) says what matters and nothing else:
 *   the connection going stale, dropping or coming back, and new critical coaching alerts.
 *   Live changes (tiles, timers, figures) are not announced one by one: the freshness
 *   indicator, which updates every second, is not a live region.
 * - A pushed fragment that replaces the element holding the keyboard focus (an agent's
 *   tile, an alert's row) hands the focus, and what was typed, to its replacement, so a
 *   keyboard user is not thrown back to the top of the page by a push.
 */
(() => {
  "use strict";

  const announcer = document.getElementById("announcer");
  let pending = 0;

  function announce(text) {
    if (!announcer || !text) return;
    // Emptied first, then filled: the same words twice in a row are said twice.
    announcer.textContent = "";
    window.clearTimeout(pending);
    pending = window.setTimeout(() => {
      announcer.textContent = text;
    }, 50);
  }

  /* ---- The connection: announced when it changes meaningfully, not every second ---- */
  const conn = document.getElementById("conn");
  const SAY = {
    stale: () => "The data is stale: no update from the dashboard.",
    upstream: () => "The service is disconnected: the figures on screen are not live.",
    reconnecting: () => "Connection to the dashboard lost, reconnecting.",
    "signed-out": () => "Signed out: sign in again to see live data.",
  };
  if (conn) {
    let shown = conn.dataset.state;
    let wasLive = false;
    new MutationObserver(() => {
      const state = conn.dataset.state;
      if (state === shown) return;
      const before = shown;
      shown = state;
      if (state === "live") {
        if (wasLive && before !== "live") announce("Live again: the data is up to date.");
        wasLive = true;
      } else if (!wasLive) {
        // the page's first connection (socket, then the service's status): nothing lost yet
      } else if (SAY[state]) {
        announce(SAY[state]());
      }
    }).observe(conn, { attributes: true, attributeFilter: ["data-state"] });
  }

  /* ---- New alarm-level alerts: the live view's "Critical alerts" figure going up, and
   * a new critical row on the coaching page ---- */
  function criticalCount() {
    const value = document.querySelector(
      '#kpis .kpi:has(> [popovertarget="why-open_critical"]) .value',
    );
    const n = value ? Number.parseInt(value.textContent, 10) : Number.NaN;
    return Number.isNaN(n) ? null : n;
  }
  let critical = criticalCount();
  document.body.addEventListener("htmx:oobAfterSwap", (e) => {
    const elt = e.target;
    if (elt.id === "kpis") {
      const now = criticalCount();
      if (now !== null && critical !== null && now > critical) {
        announce(`${now} open critical coaching alert${now === 1 ? "" : "s"}.`);
      }
      if (now !== null) critical = now;
    }
  });
  const alertsBody = document.getElementById("alerts-body");
  if (alertsBody) {
    const seen = new Set([...alertsBody.querySelectorAll("tr[id]")].map((tr) => tr.id));
    new MutationObserver(() => {
      for (const row of alertsBody.querySelectorAll("tr.alert-row[id]")) {
        if (seen.has(row.id)) continue;
        seen.add(row.id);
        if (row.classList.contains("sev-critical")) {
          const what = row.cells[1]?.firstChild?.textContent?.trim() || "alert";
          const who = row.cells[2]?.querySelector("a, bdi")?.textContent?.trim() || "";
          announce(`New critical coaching alert: ${what}${who ? ` for ${who}` : ""}.`);
        }
      }
    }).observe(alertsBody, { childList: true, subtree: true });
  }

  /* ---- Focus kept across pushes ---- */
  const FOCUSABLE = "a[href], button, input, select, textarea, [tabindex]";
  let held = null; // {id, index, value} of the focused element inside a replaced one
  document.body.addEventListener("htmx:oobBeforeSwap", (e) => {
    const old = e.detail.target;
    const active = document.activeElement;
    if (!old?.id || !active || active === document.body || !old.contains(active)) return;
    const index = active === old ? -1 : [...old.querySelectorAll(FOCUSABLE)].indexOf(active);
    held = { id: old.id, index, value: "value" in active ? active.value : null };
  });
  /* A pushed list (the live calls, the queues) is rendered once for every audience without
   * the page's own keyboard and name attributes: its replacement keeps them. */
  const KEPT = ["tabindex", "aria-labelledby", "aria-label", "role"];
  document.body.addEventListener("htmx:oobAfterSwap", (e) => {
    const old = e.detail.target;
    const elt = e.target;
    if (!old?.id || elt.id !== old.id) return;
    for (const name of KEPT) {
      if (old.hasAttribute(name) && !elt.hasAttribute(name)) {
        elt.setAttribute(name, old.getAttribute(name));
      }
    }
  });

  document.body.addEventListener("htmx:oobAfterSwap", () => {
    if (!held) return;
    const { id, index, value } = held;
    const fresh = document.getElementById(id);
    if (!fresh) return;
    held = null;
    const target = index === -1 ? fresh : fresh.querySelectorAll(FOCUSABLE)[index];
    if (!target || target === document.activeElement) return;
    if (value !== null && "value" in target && target.type !== "hidden") target.value = value;
    target.focus();
  });
})();
