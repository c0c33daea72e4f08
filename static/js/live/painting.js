/* Applying the pushes: everything that arrived, in one pass per animation frame (paced by
 * pacing.js): one parse, the newest fragment per id, each element placed by its id. A tile
 * the page has is patched in place; other elements are replaced, with the events htmx
 * sends around an out-of-band swap. */
import { adoptGrid, adoptTile, dropTile, keepTile, keptTile, placeNewTiles } from "./grid.js";
import { framePaint, pageNow } from "./page.js";
import { firstHeld, passWait, startPass } from "./pacing.js";
import { tick } from "./ticker.js";
import { forget, forgetOne, watch } from "./timers.js";

const arrived = [];
let scheduled = false;
let tickDue = false;

function schedule() {
  if (scheduled) return;
  scheduled = true;
  const wait = passWait();
  if (wait > 0) setTimeout(() => requestAnimationFrame(applyArrived), wait);
  else requestAnimationFrame(applyArrived);
}

// A pushed tile is patched into the one on screen, which keeps its node, place, filter
// and level: the grid itself is not laid out again (its tiles have a fixed size).
const KEPT = new Set(["hidden", "style", "data-level"]); // these modules', not the server's
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
  const old = elt.id ? keptTile(elt.id) || document.getElementById(elt.id) : null;
  if (elt.getAttribute("hx-swap-oob") === "delete") {
    if (old) {
      forget(old);
      old.remove();
      dropTile(old);
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
    if (!(isTile && keepTile(elt))) list.appendChild(elt); // a windowed grid draws it
  }
  watch(elt, now);
  if (elt.id === "agents") {
    for (const tile of adoptGrid(elt)) forget(tile); // the replaced grid's
  }
  if (!isTile) swapped(elt, old); // its scripts first: they show the controls it may focus
  refocus(elt, at);
}

function applyArrived() {
  scheduled = false;
  if (!arrived.length && !tickDue) return;
  startPass(arrived.length > 0);
  if (!arrived.length) {
    tickDue = false;
    tick();
    return;
  }
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
  placeNewTiles();
  if (tickDue) {
    tickDue = false;
    tick(); // the second's timers in the same frame as the tiles: one rendering, not two
  }
  document.dispatchEvent(new CustomEvent("live:applied"));
}

// A pushed message, applied with what else arrives before the frame.
export function receive(message) {
  if (!arrived.length) firstHeld();
  arrived.push(message);
  if (document.hidden)
    applyArrived(); // no frames in a hidden tab: nothing kept queued
  else schedule();
}

// Fragments placed at once, with anything still held.
export function applyNow(html) {
  arrived.push(html);
  applyArrived();
  tick();
}

// On pages that apply the pushes per frame, the one-second tick is a pass of its own
// (or rides along with one): its timers and sort are painted with the tiles.
export function tickSoon() {
  if (!framePaint || document.hidden) {
    tick();
    return;
  }
  tickDue = true;
  schedule();
}
