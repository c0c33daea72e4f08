/* The live pages' one script: applies the pushes, ticks the timers, keeps the thresholds,
 * filters, sort order and the freshness indicator.
 *
 * The server renders the page with the floor as it is and pushes htmx-style out-of-band
 * fragments over the websocket (each a top-level element with a stable id). On the live
 * view and the wallboard (`data-paint="frame"` on the socket's element) this script takes
 * the messages from htmx's websocket extension and applies everything that arrived in one
 * pass per animation frame: one parse, the newest fragment per id, each element placed by
 * id. Nothing per fragment walks the grid: each tile's time, sort key and filter are worked
 * out once, when it arrives, and the one-second ticker rewrites only the timers on screen.
 * Other pages keep htmx's own swaps.
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
  const loadedAt = Date.now();
  // A page that shows a past moment says which in `data-live-at`: its timers count up to
  // that moment, not to now.
  const shownAt = document.querySelector("[data-live-at]");
  function pageNow() {
    return shownAt ? Date.parse(shownAt.dataset.liveAt) : Date.now();
  }
  let socketState = "connecting";
  let lastMessageAt = 0;
  let sortDirty = true;
  let countDirty = true;
  let tileAdded = false; // a new agent: sorted into its place in the same frame
  let domSortDue = true; // the tiles' order in the page, not only on screen (sortGrid)

  /* ---- Time formatting ---- */
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

  /* ---- Timers: each `data-since` parsed once, when its element arrives ---- */
  const timers = new Set(); // every timer element placed, until it is replaced
  const onScreen = new Set(); // the timers in the viewport: the ones the ticker rewrites
  const limited = new Set(); // tiles whose time in state has limits (the breach count)
  const viewport =
    "IntersectionObserver" in window
      ? new IntersectionObserver((entries) => {
          for (const e of entries) {
            if (e.isIntersecting) {
              onScreen.add(e.target);
              showTime(e.target, pageNow()); // it may have been off screen for a while
            } else onScreen.delete(e.target);
          }
        })
      : null;
  function age(elt, now) {
    return Number.isNaN(elt.sinceMs) ? null : Math.max(0, (now - elt.sinceMs) / 1000);
  }
  // The text node is rewritten in place: no node made and dropped per timer and second
  // (a 4K wallboard rewrites a thousand of them).
  function showTime(elt, now) {
    const s = age(elt, now);
    const text = s === null ? "–" : clock(s);
    const out = elt.timerOut;
    if (out.shown === text) return;
    out.shown = text;
    const node = out.firstChild;
    if (node && node.nodeType === Node.TEXT_NODE && !node.nextSibling) node.data = text;
    else out.textContent = text;
  }
  function showLimit(tile, now) {
    return setLevel(tile, level(age(tile, now), thresholds[tile.dataset.limit], false));
  }
  function watch(root, now) {
    const found = root.querySelectorAll("[data-since]");
    for (const elt of root.dataset.since === undefined ? found : [root, ...found]) {
      if (elt.id === "upstream") continue; // the feed's state, not a timer
      elt.sinceMs = Date.parse(elt.dataset.since);
      elt.timerOut = elt.querySelector(".timer") || elt;
      showTime(elt, now);
      timers.add(elt);
      if (viewport)
        viewport.observe(elt); // once: observing an observed element does nothing
      else onScreen.add(elt);
      if (elt.dataset.limit) {
        limited.add(elt);
        showLimit(elt, now);
      } else if (limited.delete(elt)) setLevel(elt, "");
    }
  }
  function forgetOne(elt) {
    if (!timers.delete(elt)) return;
    onScreen.delete(elt);
    limited.delete(elt);
    viewport?.unobserve(elt);
  }
  function forget(root) {
    if (root.dataset.since !== undefined) forgetOne(root);
    for (const elt of root.querySelectorAll("[data-since]")) forgetOne(elt);
  }

  function tick() {
    const now = pageNow();
    for (const elt of onScreen) showTime(elt, now);
    let breaches = 0;
    for (const tile of limited) breaches += showLimit(tile, now);
    for (const id of ["kpis", "queues-list"]) {
      const root = document.getElementById(id);
      if (!root) continue;
      for (const elt of root.querySelectorAll("[data-value][data-limit]")) {
        const limits = thresholds[elt.dataset.limit];
        const value = elt.dataset.value === "" ? null : Number(elt.dataset.value);
        breaches += setLevel(elt, level(value, limits, limits?.low_is_bad));
      }
    }
    const badge = document.getElementById("breaches");
    if (badge) {
      badge.dataset.count = String(breaches);
      badge.textContent = `${breaches} over limit`;
    }
    if (sortDirty && performance.now() >= nextSortAt) sortGrid();
    if (countDirty) showCount();
    showFreshness();
  }

  /* ---- Freshness: browser to dashboard, and dashboard to service ---- */
  function showFreshness() {
    if (!conn) return;
    const upstream = document.getElementById("upstream");
    const upState = upstream ? upstream.dataset.state : "connecting";
    const age = lastMessageAt ? (Date.now() - lastMessageAt) / 1000 : null;
    const asOf = hhmmss(new Date(lastMessageAt || loadedAt));
    let state;
    let text;
    if (socketState === "signed-out") {
      state = "signed-out";
      text = "Signed out — sign in again";
    } else if (socketState !== "open") {
      state = "reconnecting";
      text =
        socketState === "connecting"
          ? `Connecting… showing the floor as of ${asOf}`
          : `Not live: showing the floor as of ${asOf} · reconnecting…`;
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
    if (document.body.dataset.freshness !== state) document.body.dataset.freshness = state;
    const label = conn.querySelector(".conn-text");
    if (label && label.textContent !== text) label.textContent = text;
    const link = conn.querySelector("a");
    if (link) link.hidden = state !== "signed-out";
  }

  /* ---- Filters, kept in the URL; read once per change, not per tile ---- */
  const filterForm = document.getElementById("filters");
  // The page's teams, as the server worked them out ("my floor", or the address's): "" all.
  const scopeTeams = filterForm?.dataset.teams || "";
  function readFilters() {
    const p = new URLSearchParams(location.search);
    return {
      scope: scopeTeams ? new Set(scopeTeams.split(",")) : null,
      team: p.get("team") || "",
      state: p.get("state") || "",
      q: (p.get("q") || "").trim().toLowerCase(),
      sort: p.get("sort") || config.sort || "", // a wallboard's config sorts by state
      density: p.get("density") || "",
    };
  }
  let filter = readFilters();
  function matches(tile) {
    return (
      (!filter.scope || filter.scope.has(tile.dataset.team)) &&
      (!filter.team || tile.dataset.team === filter.team) &&
      (!filter.state || tile.dataset.state === filter.state) &&
      (!filter.q || (tile.dataset.name || "").toLowerCase().includes(filter.q))
    );
  }
  function applyFilter(tile) {
    const hide = !matches(tile);
    if (tile.hidden !== hide) {
      tile.hidden = hide;
      countDirty = true;
    }
  }
  function grid() {
    return document.getElementById("agents");
  }
  function applyFilters() {
    filter = readFilters();
    document.body.classList.toggle("dense", filter.density === "dense");
    const g = grid();
    if (g) {
      for (const tile of g.children) {
        applyFilter(tile);
        tile.sortKey = sortKey(tile);
      }
    }
    countDirty = sortDirty = domSortDue = true;
  }
  function showCount() {
    countDirty = false;
    const count = document.getElementById("agents-shown");
    const g = grid();
    if (!count || !g) return;
    let shown = 0;
    for (const tile of g.children) if (!tile.hidden) shown += 1;
    count.textContent = `${shown} of ${g.childElementCount} agents`;
  }

  /* ---- Sort order: CSS order, recomputed on the tick only when a key changed ---- */
  function sortKey(tile) {
    const name = (tile.dataset.name || "").toLowerCase();
    if (filter.sort === "time") return Number.isNaN(tile.sinceMs) ? 0 : tile.sinceMs; // longest first
    if (filter.sort === "state") {
      return `${String(STATE_ORDER.indexOf(tile.dataset.state) + 1).padStart(2, "0")}${name}`;
    }
    return name;
  }
  // The tiles are put in their sorted order in the page too when the sort is chosen and when
  // an agent arrives, so the keyboard and screen readers meet them in the order shown (WCAG
  // 2.4.3); between those, keys changing (time in state) move them by CSS order alone.
  function sortGrid() {
    sortDirty = false;
    sortedInPass = true;
    const g = grid();
    if (!g) return;
    const sorted = [...g.children].sort((a, b) =>
      a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0,
    );
    if (domSortDue || tileAdded) {
      domSortDue = false;
      const focused = g.contains(document.activeElement) && document.activeElement;
      if (sorted.some((tile, i) => g.children[i] !== tile)) g.append(...sorted);
      if (focused && document.activeElement !== focused) focused.focus();
    }
    // CSS order, not DOM moves: no reflow of the subtree, one style write per changed tile.
    sorted.forEach((tile, i) => {
      const order = String(i);
      if (tile.style.order !== order) tile.style.order = order;
    });
  }

  if (filterForm) {
    for (const [name, value] of Object.entries(filter)) {
      if (filterForm.elements[name]) filterForm.elements[name].value = value;
    }
    filterForm.addEventListener("input", () => {
      const params = new URLSearchParams(location.search); // the page's other parameters stay
      for (const el of filterForm.elements) {
        if (el.name && el.value) params.set(el.name, el.value);
        else if (el.name) params.delete(el.name);
      }
      const query = params.toString();
      history.replaceState(null, "", query ? `?${query}` : location.pathname);
      applyFilters();
      tick();
    });
    filterForm.addEventListener("submit", (e) => e.preventDefault());
  }

  /* ---- Applying the pushes: one pass per animation frame ----
   * At most half of the main thread goes to it: after a pass, the next waits as long as
   * the last one took (its script, style, layout and paint, up to the frame after it). A
   * quiet floor's push is painted in the next frame; a busy one's are merged into fewer,
   * larger passes on a slow machine (a TV's stick PC) instead of queueing behind each other. */
  const arrived = [];
  let scheduled = false;
  let nextPassAt = 0;
  const afterFrame = new MessageChannel(); // a task after the frame's rendering
  let passStartedAt = 0;
  let sortedInPass = false;
  afterFrame.port1.onmessage = () => {
    const now = performance.now();
    const cost = now - passStartedAt;
    lastCost = cost;
    nextPassAt = now + cost * (catchingUp ? 2 : 1);
    // Re-grouping a thousand tiles lays out the whole grid: a screen where that is slow
    // re-sorts less often (a tile's colour shows its state at once; its place follows).
    if (sortedInPass) nextSortAt = now + Math.min(SORT_EVERY_MAX_MS, cost * SORT_PACE);
    sortedInPass = false;
  };
  function schedule() {
    if (scheduled) return;
    scheduled = true;
    const wait = nextPassAt - performance.now();
    if (wait > 0) setTimeout(() => requestAnimationFrame(applyArrived), wait);
    else requestAnimationFrame(applyArrived);
  }

  /* ---- A screen that cannot keep up (a TV's stick PC) ----
   * When changes wait longer than BEHIND_MS for their pass, the screen says it is catching
   * up: each pass then applies everything held, panel by panel, and the next waits twice
   * as long as the last took, so the timers, the clock and the socket keep their share.
   * Nothing is dropped: the newest fragment of each tile wins, so a pass's work is bounded
   * by the panel's size however far behind it was. It says so until passes are prompt. */
  const BEHIND_MS = 1000;
  const SORT_PACE = 8; // a sort's pass may take at most an eighth of the time until the next
  const SORT_EVERY_MAX_MS = 10000;
  let nextSortAt = 0;
  let oldestAt = 0; // when the oldest message not yet applied arrived
  let catchingUp = false;
  let promptPasses = 0;
  let lastCost = 0; // the last pass's, from its start to the task after its frame
  function showCatchingUp(on, everyMs) {
    let note = document.getElementById("catching-up");
    if (!on) {
      if (note) note.hidden = true;
      return;
    }
    if (!note) {
      note = document.createElement("div");
      note.id = "catching-up";
      note.className = "catching-up";
      note.setAttribute("role", "status");
      (conn || document.body).appendChild(note); // within the status: the header's layout holds
    }
    note.hidden = false;
    const every = Math.max(1, Math.round(everyMs / 1000));
    const text = `Catching up: this screen shows changes every ${every} s · nothing is lost`;
    if (note.textContent !== text) note.textContent = text;
  }
  function paceCatchingUp(now) {
    // A change waits for the pause after the last pass and for its own: about two passes
    const held = oldestAt ? now - oldestAt : 0;
    const waited = Math.max(held, 2 * lastCost);
    if (waited > BEHIND_MS) {
      catchingUp = true;
      promptPasses = 0;
    } else if (catchingUp && held < BEHIND_MS / 2 && ++promptPasses >= 5) {
      catchingUp = false;
    }
    showCatchingUp(catchingUp, Math.max(waited, 3 * lastCost));
  }

  // A tile's keys are worked out once, when it arrives.
  function adoptTile(tile, oldKey) {
    tile.sinceMs = Date.parse(tile.dataset.since);
    tile.sortKey = sortKey(tile);
    applyFilter(tile);
    if (oldKey === undefined) sortDirty = countDirty = tileAdded = true;
    else if (oldKey !== tile.sortKey) sortDirty = true;
  }

  // A pushed tile is patched into the one on screen, which keeps its node, place, filter
  // and level: the grid itself is not laid out again (its tiles have a fixed size).
  const KEPT = new Set(["hidden", "style", "data-level"]); // this script's, not the server's
  function patchTile(tile, fresh, now) {
    for (const elt of tile.querySelectorAll("[data-since]")) forgetOne(elt);
    for (const { name, value } of fresh.attributes) {
      if (tile.getAttribute(name) !== value) tile.setAttribute(name, value);
    }
    for (const name of tile.getAttributeNames()) {
      if (!fresh.hasAttribute(name) && !KEPT.has(name)) tile.removeAttribute(name);
    }
    const at = focusAt(tile);
    // Into the tile's content box (its relayout boundary), so the grid is not laid out again
    const [into, from] = tile.firstElementChild?.classList.contains("agent-body")
      ? [tile.firstElementChild, fresh.firstElementChild]
      : [tile, fresh];
    into.replaceChildren(...from.childNodes);
    refocus(tile, at);
    adoptTile(tile, tile.sortKey);
    watch(tile, now);
  }

  // A keyboard user stays where they were when a push replaces what holds the focus: which
  // of the element's links and buttons had it (-1: the element itself), or null.
  function focusAt(elt) {
    const focused = elt.contains(document.activeElement) && document.activeElement;
    return focused ? [...elt.querySelectorAll("a, button")].indexOf(focused) : null;
  }
  function refocus(elt, at) {
    if (at === null) return;
    const target = elt.querySelectorAll("a, button")[at] || elt;
    target.focus();
    // A control its page's script shows (from a MutationObserver, a microtask) takes it then
    if (document.activeElement !== target) queueMicrotask(() => target.focus());
  }

  // The events htmx sends around an out-of-band swap, so the page's other scripts (charts,
  // explain panels, the wallboard, the keyboard focus) treat these swaps as htmx's own.
  function before(old, elt) {
    const detail = { target: old, fragment: elt };
    old.dispatchEvent(new CustomEvent("htmx:oobBeforeSwap", { bubbles: true, detail }));
  }
  function swapped(elt, old) {
    elt.dispatchEvent(
      new CustomEvent("htmx:oobAfterSwap", { bubbles: true, detail: { target: old } }),
    );
  }

  function place(elt, now) {
    const old = elt.id ? document.getElementById(elt.id) : null;
    if (elt.getAttribute("hx-swap-oob") === "delete") {
      if (old) {
        forget(old);
        old.remove();
      }
      return;
    }
    const isTile = elt.classList.contains("agent");
    if (old && isTile) {
      patchTile(old, elt, now);
      return;
    }
    const at = old ? focusAt(old) : null;
    if (old) {
      forget(old);
      before(old, elt);
      old.replaceWith(elt);
    } else {
      const list = elt.dataset.into && document.getElementById(elt.dataset.into);
      if (!list) return; // a fragment this page does not show
      if (isTile) adoptTile(elt);
      list.appendChild(elt);
    }
    watch(elt, now);
    if (elt.id === "agents") {
      for (const tile of elt.children) adoptTile(tile);
    }
    if (!isTile) swapped(elt, old); // its scripts first: they show the controls it may focus
    refocus(elt, at);
  }

  function applyArrived() {
    scheduled = false;
    if (!arrived.length && !tickDue) return;
    passStartedAt = performance.now();
    afterFrame.port2.postMessage(0);
    if (tickDue && !arrived.length) {
      tickDue = false;
      if (catchingUp) paceCatchingUp(passStartedAt); // nothing waits: a prompt pass
      tick();
      return;
    }
    paceCatchingUp(passStartedAt);
    oldestAt = 0;
    const template = document.createElement("template");
    template.innerHTML = arrived.join("");
    arrived.length = 0;
    // The newest fragment of each id wins, in the order of its arrival: a tile pushed after
    // a whole grid lands on that grid.
    const newest = new Map();
    let n = 0;
    for (const elt of template.content.children) {
      const key = elt.id || `#${n++}`;
      newest.delete(key);
      newest.set(key, elt);
    }
    const now = pageNow();
    for (const elt of newest.values()) place(elt, now);
    if (tileAdded) sortGrid(); // a new agent takes its place now; changed keys on the tick
    tileAdded = false;
    if (tickDue) {
      tickDue = false;
      tick(); // the second's timers in the same frame as the tiles: one rendering, not two
    }
    document.dispatchEvent(new CustomEvent("live:applied"));
  }

  // On pages that apply the pushes per frame, the one-second tick is a pass of its own
  // (or rides along with one): its timers and sort are painted with the tiles.
  const framePaint = socketElt?.dataset.paint === "frame";
  let tickDue = false;
  function tickSoon() {
    if (!framePaint || document.hidden) {
      tick();
      return;
    }
    tickDue = true;
    schedule();
  }

  if (framePaint) {
    socketElt.addEventListener("htmx:wsBeforeMessage", (e) => {
      e.preventDefault(); // this script applies it, with what else arrives before the frame
      if (!arrived.length) oldestAt = performance.now();
      arrived.push(e.detail.message);
      lastMessageAt = Date.now();
      if (document.hidden)
        applyArrived(); // no frames in a hidden tab: nothing kept queued
      else schedule();
    });
  }
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
      lastMessageAt = Date.now(); // pages whose pushes htmx swaps
    });
  }
  // Fragments a page fetched itself ("live:frame", detail.html: a whole floor at a moment,
  // say), placed at once as the pushes are.
  document.addEventListener("live:frame", (e) => {
    arrived.push(e.detail.html);
    applyArrived();
    tick();
  });
  // Pages whose pushes htmx swaps itself (a row it has not seen names its list).
  document.body.addEventListener("htmx:oobErrorNoTarget", (e) => {
    const elt = e.detail.content;
    const list = elt?.dataset?.into && document.getElementById(elt.dataset.into);
    if (list) {
      list.appendChild(elt);
      watch(elt, pageNow());
    }
  });

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

  // The floor as the server rendered it: its tiles and timers, adopted once.
  const first = grid();
  if (first) for (const tile of first.children) adoptTile(tile);
  tileAdded = false;
  watch(document.querySelector("main") || document.body, pageNow());
  applyFilters();
  tick();
  showClock();
  setInterval(() => {
    tickSoon();
    showClock();
  }, 1000);
})();
