/* The agent grid's filters and sort order. The filters are kept in the URL and read once
 * per change, not per tile; each tile's sort key and filter are worked out once, when it
 * arrives; the order is CSS order, recomputed on the tick only when a key changed. */
import { config } from "./page.js";

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

export function grid() {
  return document.getElementById("agents");
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

// The filters as the URL has them now, applied to every tile.
export function applyFilters() {
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

// A tile's keys, worked out when it arrives (`oldKey`: the sort key it had, if it was here).
export function adoptTile(tile, oldKey) {
  tile.sinceMs = Date.parse(tile.dataset.since);
  tile.sortKey = sortKey(tile);
  applyFilter(tile);
  if (oldKey === undefined) sortDirty = countDirty = tileAdded = true;
  else if (oldKey !== tile.sortKey) sortDirty = true;
}

// The tiles the server rendered into the page.
export function adoptRenderedTiles() {
  const g = grid();
  if (g) for (const tile of g.children) adoptTile(tile);
  tileAdded = false;
}

// After a pass's pushes: a new agent takes its place now; changed keys wait for the tick.
export function placeNewTiles() {
  if (tileAdded) sortGrid();
  tileAdded = false;
}

// On the tick: re-sorted when a key changed (and the pace allows), counted when it changed.
export function tidyGrid() {
  if (sortDirty && performance.now() >= nextSortAt) sortGrid();
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
