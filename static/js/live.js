/* The live pages' one script: freshness indicator, ticking timers, thresholds, filters.
 *
 * The server pushes htmx out-of-band fragments over the websocket; nothing here renders
 * rows. Timers tick from the `data-since` timestamps in the markup, so the server never
 * sends a message just because a second passed. One interval drives every timer.
 */
(() => {
  "use strict";

  // The limits, labels and close codes come from the server (dashboard/live/browser.py).
  const config = JSON.parse(document.getElementById("live-config")?.textContent || "{}");
  const STALE_AFTER_S = config.stale_after_s; // no message for this long: the screen says so
  const STATE_ORDER = Object.keys(config.states);
  const CLOSED_FOR_GOOD = Object.values(config.close); // htmx does not retry these
  const thresholds = config.thresholds || {};
  const conn = document.getElementById("conn");
  const socketElt = document.querySelector("[ws-connect]");
  let socketState = "connecting";
  let lastMessageAt = 0;
  let sortDirty = true;

  /* ---- Time formatting ---- */
  function since(elt) {
    const t = Date.parse(elt.dataset.since);
    return Number.isNaN(t) ? null : Math.max(0, (Date.now() - t) / 1000);
  }
  function clock(seconds) {
    const s = Math.floor(seconds);
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const ss = String(s % 60).padStart(2, "0");
    return h ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
  }
  function hhmmss(date) {
    return date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  }

  /* ---- Thresholds: amber then red ---- */
  function level(value, limits, lowIsBad) {
    if (!limits || value === null || Number.isNaN(value)) return "";
    if (lowIsBad) return value < limits.alarm ? "alarm" : value < limits.warn ? "warn" : "";
    return value >= limits.alarm ? "alarm" : value >= limits.warn ? "warn" : "";
  }
  function setLevel(elt, lvl) {
    if (elt.dataset.level !== lvl) elt.dataset.level = lvl;
    return lvl ? 1 : 0;
  }

  /* ---- The one ticking loop ---- */
  function showTime(elt) {
    const s = since(elt);
    const out = elt.querySelector(".timer") || elt;
    const text = s === null ? "–" : clock(s);
    if (out.textContent !== text) out.textContent = text;
    return elt.dataset.limit ? setLevel(elt, level(s, thresholds[elt.dataset.limit], false)) : 0;
  }
  function showTimes(root) {
    let breaches = root.dataset?.since ? showTime(root) : 0;
    for (const elt of root.querySelectorAll("[data-since]")) breaches += showTime(elt);
    return breaches;
  }

  function tick() {
    let breaches = showTimes(document);
    for (const elt of document.querySelectorAll("[data-value][data-limit]")) {
      const limits = thresholds[elt.dataset.limit];
      const value = elt.dataset.value === "" ? null : Number(elt.dataset.value);
      breaches += setLevel(elt, level(value, limits, limits?.low_is_bad));
    }
    const badge = document.getElementById("breaches");
    if (badge) {
      badge.dataset.count = String(breaches);
      badge.textContent = `${breaches} over limit`;
    }
    if (sortDirty) sortGrid();
    showFreshness();
  }

  /* ---- Freshness: browser to dashboard, and dashboard to service ---- */
  function showFreshness() {
    if (!conn) return;
    const upstream = document.getElementById("upstream");
    const upState = upstream ? upstream.dataset.state : "connecting";
    const age = lastMessageAt ? (Date.now() - lastMessageAt) / 1000 : null;
    let state;
    let text;
    if (socketState === "signed-out") {
      state = "signed-out";
      text = "Signed out — sign in again";
    } else if (socketState !== "open") {
      state = "reconnecting";
      text = socketState === "connecting" ? "Connecting…" : "Reconnecting to the dashboard…";
    } else if (upState !== "connected") {
      state = "upstream";
      const since = upstream && Date.parse(upstream.dataset.since);
      text = `Upstream disconnected${since ? ` since ${hhmmss(new Date(since))}` : ""}`;
    } else if (age !== null && age > STALE_AFTER_S) {
      state = "stale";
      text = `No update for ${Math.floor(age)} s`;
    } else {
      state = "live";
      text = age === null ? "Live" : `Live · updated ${Math.floor(age)} s ago`;
    }
    if (conn.dataset.state !== state) conn.dataset.state = state;
    document.body.dataset.freshness = state;
    const label = conn.querySelector(".conn-text");
    if (label && label.textContent !== text) label.textContent = text;
    const link = conn.querySelector("a");
    if (link) link.hidden = state !== "signed-out";
  }

  /* ---- Filters, kept in the URL ---- */
  const filterForm = document.getElementById("filters");
  function filters() {
    const p = new URLSearchParams(location.search);
    return {
      team: p.get("team") || "",
      state: p.get("state") || "",
      q: (p.get("q") || "").trim().toLowerCase(),
      sort: p.get("sort") || config.sort || "", // a wallboard's config sorts by state
      density: p.get("density") || "",
    };
  }
  function matches(tile, f) {
    return (
      (!f.team || tile.dataset.team === f.team) &&
      (!f.state || tile.dataset.state === f.state) &&
      (!f.q || (tile.dataset.name || "").toLowerCase().includes(f.q))
    );
  }
  function applyFilter(tile, f) {
    const hide = !matches(tile, f);
    if (tile.hidden !== hide) tile.hidden = hide;
  }
  function applyFilters() {
    const f = filters();
    document.body.classList.toggle("dense", f.density === "dense");
    const tiles = document.querySelectorAll("#agents .agent");
    let shown = 0;
    for (const tile of tiles) {
      applyFilter(tile, f);
      if (!tile.hidden) shown += 1;
    }
    const count = document.getElementById("agents-shown");
    if (count) count.textContent = `${shown} of ${tiles.length} agents`;
    sortDirty = true;
  }
  function sortGrid() {
    sortDirty = false;
    const grid = document.getElementById("agents");
    if (!grid) return;
    const mode = filters().sort;
    const tiles = [...grid.querySelectorAll(".agent")];
    const name = (t) => t.dataset.order || t.dataset.name || "";
    const key =
      mode === "time"
        ? (t) => Date.parse(t.dataset.since) || 0 // longest in state first
        : mode === "state"
          ? (t) => `${STATE_ORDER.indexOf(t.dataset.state) + 1}${name(t)}`
          : name;
    const sorted = [...tiles].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    // CSS order, not DOM moves: no reflow of the subtree, one style write per changed tile.
    sorted.forEach((tile, i) => {
      const order = String(i);
      if (tile.style.order !== order) tile.style.order = order;
    });
  }
  if (filterForm) {
    const f = filters();
    for (const [name, value] of Object.entries(f)) {
      if (filterForm.elements[name]) filterForm.elements[name].value = value;
    }
    filterForm.addEventListener("input", () => {
      const params = new URLSearchParams();
      for (const el of filterForm.elements) {
        if (el.name && el.value) params.set(el.name, el.value);
      }
      const query = params.toString();
      history.replaceState(null, "", query ? `?${query}` : location.pathname);
      applyFilters();
    });
    filterForm.addEventListener("submit", (e) => e.preventDefault());
  }

  /* ---- The websocket's fragments ---- */
  document.body.addEventListener("htmx:oobErrorNoTarget", (e) => {
    // A row the page has not seen yet: the fragment names the list it belongs to.
    const elt = e.detail.content;
    const list = elt?.dataset?.into && document.getElementById(elt.dataset.into);
    if (list) {
      list.appendChild(elt);
      showTimes(elt);
      if (elt.classList.contains("agent")) applyFilter(elt, filters());
      sortDirty = true;
    }
  });
  document.body.addEventListener("htmx:oobAfterSwap", (e) => {
    const elt = e.target; // the new element; e.detail.target is the one it replaced
    if (elt.nodeType === 1) showTimes(elt); // a new row shows its time at once
    if (elt.id === "agents") applyFilters();
    else if (elt.classList?.contains("agent")) {
      elt.style.order = e.detail.target.style.order; // keep its place until the next sort
      applyFilter(elt, filters());
      sortDirty = true;
    }
  });
  if (socketElt) {
    socketElt.addEventListener("htmx:wsOpen", () => {
      socketState = "open";
      showFreshness();
    });
    socketElt.addEventListener("htmx:wsClose", (e) => {
      const code = e.detail.event.code;
      socketState = CLOSED_FOR_GOOD.includes(code) ? "signed-out" : "closed";
      showFreshness();
    });
    socketElt.addEventListener("htmx:wsAfterMessage", () => {
      lastMessageAt = Date.now();
      showFreshness();
    });
  }

  /* ---- Forms that arrived over the socket were rendered once for every browser, so they
   * carry no CSRF token: each gets this page's own as it is submitted. ---- */
  document.addEventListener("submit", (e) => {
    const form = e.target;
    if (form.method !== "post" || form.elements.csrfmiddlewaretoken) return;
    const headers = JSON.parse(document.body.getAttribute("hx-headers") || "{}");
    const token = document.createElement("input");
    token.type = "hidden";
    token.name = "csrfmiddlewaretoken";
    token.value = headers["X-CSRFToken"] || "";
    form.appendChild(token);
  });

  /* ---- Clock for wallboards ---- */
  function showClock() {
    const c = document.getElementById("clock");
    if (c) c.textContent = hhmmss(new Date());
  }

  applyFilters();
  tick();
  showClock();
  setInterval(() => {
    tick();
    showClock();
  }, 1000);
})();
