/* The agent grid's filters and sort order. The filters are kept in the URL and read once
 * per change, not per tile; each tile's sort key, and the fields the filters compare, are
 * worked out once, when it arrives, into properties of its own (a DOM read costs ten times
 * a property's, and a filter's change reads them for every agent); the order is CSS order,
 * recomputed on the tick only when a key changed.
 *
 * A grid of `config.window_from` agents or more is windowed: every tile is kept (and
 * patched) in `kept`, but the page holds only the rows in view and a margin, drawn again
 * as the page scrolls; filters, search and sort go over all of them. Its tiles that do not
 * pass the filters are left out of the page, not hidden. */
import { config, pageNow } from "./page.js";
import { observeTimers, unobserveTimers, watch } from "./timers.js";

const STATE_ORDER = Object.keys(config.states);
const SORT_PACE = 8; // a sort's pass may take at most an eighth of the time until the next
const SORT_EVERY_MAX_MS = 10000;
const filterForm = document.getElementById("filters");
// The page's teams, as the server worked them out ("my floor", or the address's): "" all.
const scopeTeams = filterForm?.dataset.teams || "";
let filter = readFilters();
let sortDirty = true;
let countDirty = true;
let tileAdded = false; // a new agent: sorted into its place in the same pass
let domSortDue = true; // the tiles' order in the page, not only on screen (sortGrid)
let nextSortAt = 0;
let sortedInPass = false;
const MARGIN_ROWS = 4; // rows kept in the page above and below the view
const SPARE_ROWS = 1; // the window is drawn again once fewer of its margin's rows are left
let kept = null; // a windowed grid's tiles by id, in the page or not; else null
let ordered = []; // a windowed grid's tiles in sort order, kept while no key changes
let orderDue = true;
let shown = []; // of those, the ones that pass the filters
let drawDue = false;
let geometry = null; // a windowed grid's columns and row height, until its layout changes
let drawn = null; // the rows in the page, [first, last), of which `shown` list
let drawing = () => {}; // brings a tile up to date before it is drawn (painting.js)

export function grid() {
  return document.getElementById("agents");
}

function tiles() {
  return kept ? kept.values() : grid()?.children || [];
}

// A windowed grid's tile, in the page or not (null: look in the page).
export function keptTile(id) {
  return kept?.get(id) || null;
}

// A new tile of a windowed grid is kept, and drawn when in view: true. Else false.
export function keepTile(tile) {
  if (!kept) return false;
  kept.set(tile.id, tile);
  return true;
}

// `update(tile, now)` is called for each tile a windowed grid draws into the page.
export function beforeDrawing(update) {
  drawing = update;
}

// A tile that left the floor.
export function dropTile(tile) {
  if (!kept?.delete(tile.id)) return;
  shown = shown.filter((other) => other !== tile);
  countDirty = orderDue = true;
}

// A grid arrived whole (`fresh`): windowed from `window_from` tiles, whose timers are
// watched here, out of the page (the page watches another grid's with the page). The tiles
// of the one it replaces, which the page may not hold, are handed back (their timers are
// forgotten).
export function adoptGrid(fresh, now) {
  const before = kept ? [...kept.values()] : [];
  kept = null;
  orderDue = true;
  geometry = null;
  if (fresh.childElementCount >= config.window_from) {
    kept = new Map([...fresh.children].map((tile) => [tile.id, tile]));
    fresh.replaceChildren(); // drawn by the next sort, never laid out all at once
    for (const tile of kept.values()) watch(tile, now); // observed once drawn
  }
  for (const tile of tiles()) adoptTile(tile);
  return before;
}

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

function matches(tile) {
  return (
    (!filter.scope || filter.scope.has(tile.teamKey)) &&
    (!filter.team || tile.teamKey === filter.team) &&
    (!filter.state || tile.stateKey === filter.state) &&
    (!filter.q || tile.nameKey.includes(filter.q))
  );
}

// `passes`, the filters' verdict; a grid not windowed hides the tiles that fail them.
function applyFilter(tile) {
  const passes = matches(tile);
  if (tile.passes === passes) return;
  tile.passes = passes;
  countDirty = true;
  // A windowed grid's shown list changes; another's tile is hidden or shown
  if (kept) sortDirty = true;
  else if (tile.hidden === passes) tile.hidden = !passes;
}

// The filters as the URL has them now, applied to every tile.
export function applyFilters() {
  const sortBefore = filter.sort;
  filter = readFilters();
  const resort = filter.sort !== sortBefore; // else each tile's key is the same
  if (resort) orderDue = true;
  const dense = filter.density === "dense";
  if (document.body.classList.contains("dense") !== dense) geometry = null; // tiles resized
  document.body.classList.toggle("dense", dense);
  for (const tile of tiles()) {
    applyFilter(tile);
    if (resort) tile.sortKey = sortKey(tile);
  }
  countDirty = sortDirty = domSortDue = true;
}

function showCount() {
  countDirty = false;
  const count = document.getElementById("agents-shown");
  const g = grid();
  if (!count || !g) return;
  let passing = 0;
  let all = 0;
  for (const tile of tiles()) {
    all += 1;
    if (tile.passes) passing += 1;
  }
  count.textContent = `${passing} of ${all} agents`;
}

function sortKey(tile) {
  const name = tile.nameKey;
  if (filter.sort === "time") return Number.isNaN(tile.sinceMs) ? 0 : tile.sinceMs; // longest first
  if (filter.sort === "state") {
    return `${String(STATE_ORDER.indexOf(tile.stateKey) + 1).padStart(2, "0")}${name}`;
  }
  return name;
}

function byKey(a, b) {
  return a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0;
}

// The tiles are put in their sorted order in the page too when the sort is chosen and when
// an agent arrives, so the keyboard and screen readers meet them in the order shown (WCAG
// 2.4.3); between those, keys changing (time in state) move them by CSS order alone. A
// windowed grid's page holds its window's tiles in that order.
function sortGrid() {
  sortDirty = false;
  sortedInPass = true;
  const g = grid();
  if (!g) return;
  if (kept) {
    // A filter's change re-filters the order it had; only a key's change sorts them again
    if (orderDue) ordered = [...kept.values()].sort(byKey);
    orderDue = false;
    shown = ordered.filter((tile) => tile.passes);
    tileAdded = domSortDue = false;
    drawWindow();
    return;
  }
  const sorted = [...g.children].sort(byKey);
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

// A tile's keys, worked out when it arrives (`oldKey`: the sort key it had, if it was here).
export function adoptTile(tile, oldKey) {
  const data = tile.dataset;
  tile.sinceMs = Date.parse(data.since);
  tile.nameKey = (data.name || "").toLowerCase();
  tile.teamKey = data.team;
  tile.stateKey = data.state;
  tile.sortKey = sortKey(tile);
  applyFilter(tile);
  if (oldKey === undefined) sortDirty = countDirty = tileAdded = orderDue = true;
  else if (oldKey !== tile.sortKey) sortDirty = orderDue = true;
}

// The tiles the server rendered into the page.
export function adoptRenderedTiles() {
  const g = grid();
  if (g) adoptGrid(g, pageNow());
  tileAdded = false;
}

/* ---- A windowed grid: the rows in view and a margin, in sort order ---- */
// Its columns and row height, measured again only when its layout may have changed (a
// resize, the density, a new grid): reading the grid's computed style and a tile's height
// each frame of a scroll forced a style and layout pass of its own.
function measure(g) {
  const style = getComputedStyle(g);
  const probe = g.firstElementChild || shown[0];
  const borrowed = probe && !probe.isConnected;
  if (borrowed) g.append(probe); // a tile in the page, to measure
  const gap = Number.parseFloat(style.rowGap) || 0;
  const rowHeight = probe ? probe.offsetHeight + gap : 0;
  const cols = Math.max(1, style.gridTemplateColumns.split(" ").length);
  if (borrowed) probe.remove(); // drawn in its place, up to date
  const found = { cols, gap, rowHeight };
  if (rowHeight) geometry = found; // else measured again once a tile is drawn
  return found;
}

// A scroll redraws the window only when the view comes within SPARE_ROWS of its edge,
// then a few rows at once: most frames of a scroll change nothing in the page, so they
// need no style, layout or paint of their own.
function drawWindow() {
  const g = grid();
  if (!g || !kept) return;
  const measured = geometry || measure(g);
  const { cols, gap, rowHeight } = measured;
  const rows = Math.ceil(shown.length / cols);
  let first = 0;
  let last = rows;
  if (rowHeight) {
    const top = g.getBoundingClientRect().top; // row 0's top, whatever is in the page
    const clamp = (row, low) => Math.max(low, Math.min(row, rows - 1));
    const viewFirst = clamp(Math.floor(-top / rowHeight), 0);
    const viewLast = clamp(Math.ceil((innerHeight - top) / rowHeight), viewFirst - 1) + 1;
    const d = drawn;
    if (
      d?.shown === shown &&
      d.geometry === measured &&
      (d.first === 0 || viewFirst - SPARE_ROWS >= d.first) &&
      (d.last === rows || viewLast + SPARE_ROWS <= d.last) &&
      viewFirst >= d.first &&
      viewLast <= d.last
    ) {
      return;
    }
    first = clamp(viewFirst - MARGIN_ROWS, 0);
    last = clamp(viewLast - 1 + MARGIN_ROWS, first - 1) + 1;
  }
  drawn = { shown, geometry: measured, first, last };
  const slice = shown.slice(first * cols, last * cols);
  // The rows above the window are padding; the grid keeps the height of all its rows.
  setStyle(g, "paddingTop", `${first * rowHeight}px`);
  setStyle(g, "height", `${Math.max(0, rows * rowHeight - gap)}px`);
  if (slice.length === g.childElementCount && slice.every((tile, i) => g.children[i] === tile)) {
    return;
  }
  // Only the tiles that leave or enter the window move: a scroll by a row moves a row. A
  // window mostly new (a filter's change, a jump) is placed at once. The timers of the
  // tiles out of the page are not watched for the viewport: that costs each frame.
  const focused = g.contains(document.activeElement) && document.activeElement;
  const wanted = new Set(slice);
  const before = [...g.children];
  const leaving = before.filter((tile) => !wanted.has(tile));
  const had = new Set(before);
  const entering = slice.filter((tile) => !had.has(tile));
  for (const tile of leaving) unobserveTimers(tile);
  if (leaving.length * 2 > before.length) g.replaceChildren(...slice);
  else {
    for (const tile of leaving) tile.remove();
    let next = g.firstElementChild;
    for (const tile of slice) {
      if (tile === next) next = next.nextElementSibling;
      else g.insertBefore(tile, next);
    }
  }
  const now = pageNow();
  for (const tile of entering) {
    drawing(tile, now);
    observeTimers(tile, now);
  }
  if (focused?.isConnected && document.activeElement !== focused) focused.focus();
}
function setStyle(elt, name, value) {
  if (elt.style[name] !== value) elt.style[name] = value;
}
function drawSoon() {
  if (!kept || drawDue) return;
  drawDue = true;
  requestAnimationFrame(() => {
    drawDue = false;
    drawWindow();
  });
}
addEventListener("scroll", drawSoon, { passive: true, capture: true }); // the page or a box in it
addEventListener("resize", () => {
  geometry = null;
  drawSoon();
});

// After a pass's pushes: a new agent takes its place now; changed keys wait for the tick.
export function placeNewTiles() {
  if (tileAdded) sortGrid();
  tileAdded = false;
}

// On the tick: re-sorted when a key changed (and the pace allows), counted when it changed.
export function tidyGrid() {
  // A windowed grid shows a filter's tiles at once: they are not in the page to unhide
  if (sortDirty && (performance.now() >= nextSortAt || (kept && domSortDue))) sortGrid();
  if (countDirty) showCount();
}

// Re-grouping a thousand tiles lays out the whole grid: a screen where that is slow
// re-sorts less often (a tile's colour shows its state at once; its place follows).
export function paceSort(now, passCost) {
  if (sortedInPass) nextSortAt = now + Math.min(SORT_EVERY_MAX_MS, passCost * SORT_PACE);
  sortedInPass = false;
}

// The filter form shows the URL's filters and writes its changes back there (the page's
// other parameters stay); `changed` runs after each.
export function followFilterForm(changed) {
  if (!filterForm) return;
  for (const [name, value] of Object.entries(filter)) {
    if (filterForm.elements[name]) filterForm.elements[name].value = value;
  }
  filterForm.addEventListener("input", () => {
    const params = new URLSearchParams(location.search);
    for (const el of filterForm.elements) {
      if (el.name && el.value) params.set(el.name, el.value);
      else if (el.name) params.delete(el.name);
    }
    const query = params.toString();
    history.replaceState(null, "", query ? `?${query}` : location.pathname);
    applyFilters();
    changed();
  });
  filterForm.addEventListener("submit", (e) => e.preventDefault());
}
