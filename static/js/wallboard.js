/* The wallboard's script, on top of the live scripts in static/js/live/ (timers, thresholds, clock).
 *
 * It rotates the link's panels, fits the agent grid to the screen and groups its tiles by
 * state, counts agents per state, covers the screen with "data stale since" when nothing
 * fresh arrives, says why a link stopped working, and reloads the page when the server
 * runs a new build. A screen that stays behind the pushes says so on its socket, and is
 * then sent whole panels at the pace it paints them (dashboard/wallboard/catching_up.py).
 */
(() => {
  "use strict";

  const config = JSON.parse(document.getElementById("live-config").textContent);
  const STALE_AFTER_S = config.stale_after_s; // dashboard/live/browser.py
  const TILE_RATIO = 5; // width / height of an agent tile: icon, name and timer on one line
  const BIG_NUMBERS = ".kpi .value, .qrow strong, .wb-alerts-total";
  const socketElt = document.querySelector("[ws-connect]");
  const panels = [...document.querySelectorAll(".wb-panel")].filter((p) =>
    config.panels.includes(p.dataset.panel),
  );
  const stateNames = config.states;
  let current = 0;
  let lastMessageAt = Date.now(); // page load counts: a feed that never answers goes stale too
  let finished = false; // the link was closed, or a reload is under way: nothing more to show
  let upstreamLostAt = null; // while the dashboard is cut off from the service

  function hhmmss(ms) {
    return new Date(ms).toLocaleTimeString([], {
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
  }

  /* ---- Rotation ---- */
  function show(index) {
    current = index;
    panels.forEach((panel, i) => {
      panel.hidden = i !== index;
    });
    const panel = panels[index];
    document.getElementById("wb-panel-title").textContent = panel ? panel.dataset.title : "";
    document.getElementById("wb-dots").textContent =
      panels.length > 1 ? panels.map((_, i) => (i === index ? "●" : "○")).join(" ") : "";
    fitGrid(true);
    fitNumbers();
  }
  if (panels.length > 1) {
    setInterval(() => show((current + 1) % panels.length), Math.max(5, config.rotation_s) * 1000);
  }

  /* ---- The agent grid fills its panel: as many columns as make the tiles largest ----
   * Each tile is placed by its own transform (wallboard.css: absolutely positioned, of a
   * fixed size): moving a tile repaints it and lays out nothing (re-flowing a thousand grid
   * items took most of a throttled TV's frame; moving them by left and top re-laid out
   * every positioned tile, slower still). */
  let fittedCount = 0;
  let cell = null; // {cols, w, h, gap}: the tile's box, in px
  function fitGrid(resized) {
    const section = document.querySelector('.wb-panel[data-panel="agents"]');
    const grid = document.getElementById("agents");
    if (!section || !grid || section.hidden) return;
    const count = grid.childElementCount;
    if (!count || (count === fittedCount && !resized)) return; // sizes are read only when needed
    fittedCount = count;
    const area = section.querySelector(".wb-grid");
    const width = area.clientWidth;
    const height = area.clientHeight;
    const gap = Math.max(2, Math.round(height / 250));
    let best = { cols: 1, tile: 0 };
    for (let cols = 1; cols <= count; cols += 1) {
      const rows = Math.ceil(count / cols);
      const tileW = (width - gap * (cols - 1)) / cols;
      const tileH = (height - gap * (rows - 1)) / rows;
      const tile = Math.min(tileH, tileW / TILE_RATIO);
      if (tile > best.tile) best = { cols, tile };
    }
    const tile = Math.floor(best.tile);
    const w = Math.floor((width - gap * (best.cols - 1)) / best.cols);
    cell = { cols: best.cols, w, h: tile, gap };
    section.style.setProperty("--tile-w", `${w}px`);
    section.style.setProperty("--tile-h", `${tile}px`);
    section.style.setProperty("--tile-font", `${Math.max(8, Math.floor(tile * 0.4))}px`);
    measureNames(grid);
    placeTiles();
  }

  /* ---- A name wider than its column ends in an ellipsis; only such a name is clipped ----
   * A clip on every tile's name is a thousand more paint property nodes, which each frame
   * that paints lays into layers again (nearly half of a frame's Layerize). Names are
   * measured on a canvas, in the names' font: no layout. */
  const ruler = document.createElement("canvas").getContext("2d");
  let nameRoom = 0; // the name's column, in px
  let fits = 0; // counts the fittings: a tile's name is measured again after each
  const nameWidths = new Map(); // name -> its width in the current font
  function measureNames(grid) {
    const name = grid.querySelector(".agent .name");
    if (!name) return;
    const style = getComputedStyle(name);
    ruler.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    nameRoom = name.getBoundingClientRect().width;
    nameWidths.clear();
    fits += 1;
  }
  function clipLongName(tile) {
    if (tile.wbFit === fits && tile.wbNamed === tile.nameKey) return; // live/grid.js's
    tile.wbFit = fits;
    tile.wbNamed = tile.nameKey;
    const name = tile.dataset.name || "";
    let width = nameWidths.get(name);
    if (width === undefined) {
      width = ruler.measureText(name).width;
      nameWidths.set(name, width);
    }
    // within 2 px of its column: clipped too (a canvas and a line may round apart)
    const clip = width > nameRoom - 2;
    if (clip) tile.style.setProperty("--name-overflow", "hidden");
    else tile.style.removeProperty("--name-overflow");
  }

  /* ---- Tiles grouped by state; the legend counts them on the way ----
   * Each state has a run of places, in live-config's order, as many as its tiles. A tile
   * whose place is still in its state's run keeps it; the others (a tile that changed
   * state, one left outside its run when a run before it grew or shrank) take their run's
   * free places, by name (a fresh grid is placed by name). A placing thus moves the tiles
   * that changed state and a few at the runs' edges, not every tile after the first change
   * (a move repaints the tile: on a slow TV, most of a placing's cost). It follows each
   * pass that applied pushes, in the same frame: a tile that changes state is repainted
   * once, in its new colour and place. */
  const STATE_RANK = Object.fromEntries(Object.keys(stateNames).map((s, i) => [s, i]));
  function behind() {
    const note = document.getElementById("catching-up"); // the live scripts' (live/pacing.js)
    return Boolean(note && !note.hidden);
  }
  const byRankAndName = (a, b) =>
    a.wbRank - b.wbRank || (a.wbName < b.wbName ? -1 : a.wbName > b.wbName ? 1 : 0);
  // Each tile's place (`wbSlot`, an index in reading order), kept where its run allows.
  function assignSlots(tiles) {
    const perRank = new Map();
    for (const tile of tiles) perRank.set(tile.wbRank, (perRank.get(tile.wbRank) || 0) + 1);
    const runs = new Map(); // rank -> [start, end)
    let start = 0;
    for (const rank of [...perRank.keys()].sort((a, b) => a - b)) {
      runs.set(rank, [start, start + perRank.get(rank)]);
      start += perRank.get(rank);
    }
    const taken = new Array(tiles.length).fill(false);
    const moving = [];
    for (const tile of tiles) {
      const [from, to] = runs.get(tile.wbRank);
      const slot = tile.wbSlot;
      if (slot >= from && slot < to && !taken[slot]) taken[slot] = true;
      else moving.push(tile);
    }
    for (const tile of moving) tile.wbName = tile.dataset.name || "";
    moving.sort(byRankAndName);
    let rank = null;
    let free = 0;
    for (const tile of moving) {
      if (tile.wbRank !== rank) {
        rank = tile.wbRank;
        free = runs.get(rank)[0];
      }
      while (taken[free]) free += 1;
      taken[free] = true;
      tile.wbSlot = free;
    }
  }
  function placeTiles() {
    const grid = document.getElementById("agents");
    if (!grid || !cell) return;
    const tiles = [...grid.children].filter((tile) => !tile.hidden);
    const counts = {};
    for (const tile of tiles) {
      const state = tile.stateKey ?? tile.dataset.state; // live/grid.js's, once adopted
      counts[state] = (counts[state] || 0) + 1;
      tile.wbRank = STATE_RANK[state] ?? 99;
      clipLongName(tile);
    }
    assignSlots(tiles);
    const { cols, w, h, gap } = cell;
    for (const tile of tiles) {
      const x = (tile.wbSlot % cols) * (w + gap);
      const y = Math.floor(tile.wbSlot / cols) * (h + gap);
      if (tile.wbAt !== x * 1e5 + y) {
        tile.wbAt = x * 1e5 + y;
        tile.style.transform = `translate(${x}px, ${y}px)`;
      }
    }
    showLegend(counts);
  }

  /* ---- A large number wider than its tile (an hour-long wait, say) shrinks to fit ---- */
  function fitNumbers() {
    const panel = panels[current];
    if (!panel || panel.dataset.panel === "agents") return;
    for (const elt of panel.querySelectorAll(BIG_NUMBERS)) {
      if (elt.scrollWidth > elt.clientWidth && elt.clientWidth) {
        const size = parseFloat(getComputedStyle(elt).fontSize);
        elt.style.fontSize = `${Math.floor((size * elt.clientWidth) / elt.scrollWidth)}px`;
      }
    }
  }

  /* ---- Agents per state, beside the grid ---- */
  function showLegend(counts) {
    const legend = document.getElementById("wb-legend");
    if (!legend) return;
    for (const state of Object.keys(stateNames)) {
      let item = legend.querySelector(`[data-state="${state}"]`);
      if (!counts[state] && !item) continue;
      if (!item) {
        item = document.createElement("li");
        item.dataset.state = state;
        legend.appendChild(item);
      }
      const text = `${counts[state] || 0} ${stateNames[state]}`;
      if (item.textContent !== text) item.textContent = text;
    }
  }

  /* ---- Never a frozen screen that looks live ---- */
  function staleness() {
    const now = Date.now();
    if (now - lastMessageAt > STALE_AFTER_S * 1000) {
      return { since: lastMessageAt, why: "No updates from the dashboard: reconnecting…" };
    }
    // Its state's `since` restarts with every reconnect attempt: keep the first one seen.
    const upstream = document.getElementById("upstream");
    if (!upstream || upstream.dataset.state === "connected") {
      upstreamLostAt = null;
    } else if (upstreamLostAt === null) {
      upstreamLostAt = Math.min(now, Date.parse(upstream.dataset.since) || now);
    }
    if (upstreamLostAt !== null && now - upstreamLostAt > STALE_AFTER_S * 1000) {
      return {
        since: upstreamLostAt,
        why: "The dashboard has lost the call-centre service: reconnecting…",
      };
    }
    return null;
  }
  function showStale() {
    const overlay = document.getElementById("wb-stale");
    const stale = finished ? null : staleness();
    if (overlay.hidden !== !stale) overlay.hidden = !stale;
    const said = stale ? "yes" : "no";
    if (document.body.dataset.stale !== said) document.body.dataset.stale = said;
    if (stale) {
      document.getElementById("wb-stale-since").textContent = hhmmss(stale.since);
      document.getElementById("wb-stale-why").textContent = stale.why;
    }
  }

  /* ---- Behind the pushes for good: whole panels instead, at this screen's pace ----
   * When the live scripts' catching-up note has said for BEHIND_FOR_MS on end that changes
   * wait FAR_BEHIND_S or more (a slow screen that merges its passes keeps up better than
   * whole panels would: each costs a pass over every tile), the page asks its socket for
   * whole panels; while they come (the server's #wb-catching-up note shown) it says when
   * it has painted each, in the task after the frame that drew it. */
  const BEHIND_FOR_MS = 10000;
  const FAR_BEHIND_S = config.far_behind_s; // WALLBOARD_FAR_BEHIND_S
  let sock = null; // htmx's socket wrapper, while open
  let behindSince = null;
  let painted = 0; // the last whole refresh said painted
  function say(message) {
    if (sock) sock.send(JSON.stringify(message));
  }
  function followPace() {
    const note = document.getElementById("wb-catching-up");
    const refreshing = Boolean(note && !note.hidden);
    const refresh = note ? Number(note.dataset.refresh) || 0 : 0;
    if (refresh && refresh !== painted) {
      painted = refresh;
      setTimeout(() => say({ painted: refresh }), 0);
    }
    const far =
      behind() && Number(document.getElementById("catching-up").dataset.every) >= FAR_BEHIND_S;
    if (refreshing || !far) {
      behindSince = null;
    } else if (behindSince === null) {
      behindSince = Date.now();
    } else if (Date.now() - behindSince >= BEHIND_FOR_MS) {
      behindSince = Date.now();
      say({ behind: true });
    }
  }

  /* ---- The socket ---- */
  if (socketElt) {
    document.addEventListener("live:applied", () => {
      lastMessageAt = Date.now();
      const build = document.getElementById("build");
      if (build && build.dataset.build !== config.build) {
        if (!finished) location.reload(); // a new deploy: take its page and script, once
        finished = true;
        return;
      }
      placeTiles();
      showStale();
      followPace();
    });
    socketElt.addEventListener("htmx:wsOpen", (e) => {
      sock = e.detail.socketWrapper;
      painted = 0; // a new socket counts its refreshes from one
      behindSince = null;
      const note = document.getElementById("wb-catching-up");
      if (note) {
        note.hidden = true;
        note.dataset.refresh = "0";
      }
    });
    socketElt.addEventListener("htmx:wsClose", (e) => {
      sock = null;
      if (e.detail.event.code !== config.close.forbidden) return; // else htmx reconnects
      finished = true;
      const notice = document.getElementById("wallboard-closed");
      if (notice.hidden) {
        // closed without a reason sent first
        notice.className = "wb-closed";
        notice.hidden = false;
        notice.innerHTML = "";
        const title = document.createElement("h1");
        title.textContent = "This wallboard link no longer works";
        notice.appendChild(title);
      }
      showStale();
    });
  }

  document.body.addEventListener("htmx:oobAfterSwap", (e) => {
    if (e.target.id === "kpis" || e.target.id === "wb-alerts") fitNumbers(); // not per agent tile
  });
  window.addEventListener("resize", () => fitGrid(true));
  show(0);
  // Each second, in the live scripts' tick (its pass and frame: one rendering a second on a
  // quiet floor). The alerts' tiles and banner blink with it, not by a CSS animation, which
  // would make a slow TV lay out its layers and commit at every frame (wallboard.css).
  // The blink's half follows the clock's second, not the count of ticks (a page's own
  // fragments tick it too: live:frame).
  document.addEventListener("live:tick", () => {
    fitGrid(false);
    fitNumbers();
    showStale();
    const blink = Math.floor(Date.now() / 1000) % 2 ? "on" : "off";
    if (document.body.dataset.blink !== blink) document.body.dataset.blink = blink;
  });
})();
