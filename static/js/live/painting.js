/* Applying the pushes: everything that arrived, in one pass per animation frame (paced by
 * pacing.js): one parse, the newest fragment per id, each element placed by its id. A tile
 * the page has is patched in place; other elements are replaced, with the events htmx
 * sends around an out-of-band swap.
 *
 * A windowed grid's tiles out of the page (nearly all of a whole floor's) are patched
 * after the pass, a few milliseconds at a time between frames, not in it: a busy floor's
 * pass would otherwise patch hundreds of tiles no one sees before painting the few in
 * view. A tile is patched before the grid draws it, so one scrolled into view is current. */
import {
  adoptGrid,
  adoptTile,
  beforeDrawing,
  dropTile,
  keepTile,
  keptTile,
  placeNewTiles,
} from "./grid.js";
import { framePaint, pageNow } from "./page.js";
import { firstHeld, passWait, startPass } from "./pacing.js";
import { tick } from "./ticker.js";
import { forget, watch } from "./timers.js";

const arrived = [];
let scheduled = false;
let tickDue = false;
const SLICE_MS = 8; // the out-of-page patches' share of a task
const outOfPage = new Map(); // a windowed grid's tiles out of the page: id -> newest fragment
const slices = new MessageChannel(); // a task of its own, not a frame: nothing to paint
let sliceDue = false;

function schedule() {
  if (scheduled) return;
  scheduled = true;
  const wait = passWait();
  if (wait > 0) setTimeout(() => requestAnimationFrame(applyArrived), wait);
  else requestAnimationFrame(applyArrived);
}

// A pushed tile is patched into the one in the page, part by part: only what changed is
// written (an attribute, a text, or a part whose own attributes changed, replaced whole),
// so the tile keeps its nodes, place, filter, level and focus, its timers stay observed,
// and the grid is not laid out again (its tiles have a fixed size).
const KEPT = new Set(["hidden", "style", "data-level"]); // these modules', not the server's
function patchTile(tile, fresh, now) {
  const timed = [tile.dataset.since, tile.dataset.limit];
  for (const { name, value } of fresh.attributes) {
    if (tile.getAttribute(name) !== value) tile.setAttribute(name, value);
  }
  // It now has every attribute of `fresh`: any other, not the page's own, is dropped
  let own = 0;
  for (const name of KEPT) if (tile.hasAttribute(name)) own += 1;
  if (tile.attributes.length > fresh.attributes.length + own) {
    for (const name of tile.getAttributeNames()) {
      if (!fresh.hasAttribute(name) && !KEPT.has(name)) tile.removeAttribute(name);
    }
  }
  const at = focusAt(tile);
  const added = [];
  patchChildren(tile, fresh, added);
  refocus(tile, at);
  adoptTile(tile, tile.sortKey);
  // Timers are watched again only where they changed: the tile's own, or a part placed whole
  const retimed = timed[0] !== tile.dataset.since || timed[1] !== tile.dataset.limit;
  if (retimed || !tile.contains(tile.timerOut)) watch(tile, now);
  else for (const part of added) watch(part, now);
}

// `old`'s children made like `fresh`'s; the elements placed whole go in `added`. Children
// that differ in kind from their place on are replaced (a call's link coming or going).
function patchChildren(old, fresh, added) {
  const was = old.childNodes;
  const now = fresh.childNodes;
  let same = 0;
  const common = Math.min(was.length, now.length);
  while (same < common && was[same].nodeName === now[same].nodeName) same += 1;
  while (was.length > same) {
    const gone = old.lastChild;
    if (gone.nodeType === Node.ELEMENT_NODE) forget(gone);
    gone.remove();
  }
  const rest = [...now].slice(same);
  for (const node of rest) if (node.nodeType === Node.ELEMENT_NODE) added.push(node);
  old.append(...rest);
  for (let i = same - 1; i >= 0; i -= 1) patchNode(was[i], now[i], added);
}

function patchNode(old, fresh, added) {
  if (old.nodeType === Node.TEXT_NODE) {
    if (old.data !== fresh.data) old.data = fresh.data;
  } else if (old.nodeType !== Node.ELEMENT_NODE) {
    old.replaceWith(fresh);
  } else if (old.isEqualNode(fresh)) {
    // most parts of a pushed tile are unchanged: compared natively, in one call
  } else if (!sameAttributes(old, fresh)) {
    forget(old);
    added.push(fresh);
    old.replaceWith(fresh); // a page script's MutationObserver sees it as new (the Act button)
  } else if (!old.classList.contains("timer") && old.dataset.since === undefined) {
    patchChildren(old, fresh, added); // a timer's text is the ticker's
  }
}

// The same attributes, but for `hidden` on the Act button (its page's script sets that).
function sameAttributes(old, fresh) {
  const pageSets = old.classList.contains("act") ? "hidden" : null;
  let count = 0;
  for (const { name, value } of fresh.attributes) {
    if (name === pageSets) continue;
    if (old.getAttribute(name) !== value) return false;
    count += 1;
  }
  return count === old.attributes.length - (pageSets && old.hasAttribute(pageSets) ? 1 : 0);
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
  const kept = elt.id ? keptTile(elt.id) : null;
  const old = kept || (elt.id ? document.getElementById(elt.id) : null);
  outOfPage.delete(elt.id);
  if (elt.getAttribute("hx-swap-oob") === "delete") {
    if (old) {
      forget(old);
      old.remove();
      dropTile(old);
    }
    return;
  }
  const isTile = elt.classList.contains("agent");
  if (kept && isTile && !kept.isConnected) {
    outOfPage.set(elt.id, elt);
    sliceSoon();
    return;
  }
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
  if (elt.id === "agents") {
    outOfPage.clear(); // older than the grid
    for (const tile of adoptGrid(elt, now)) forget(tile); // the replaced grid's
  }
  watch(elt, now);
  if (!isTile) swapped(elt, old); // its scripts first: they show the controls it may focus
  refocus(elt, at);
}

// The held patches of tiles out of the page, SLICE_MS at a time.
function sliceSoon() {
  if (sliceDue) return;
  sliceDue = true;
  slices.port2.postMessage(0);
}
slices.port1.onmessage = () => {
  sliceDue = false;
  const until = performance.now() + SLICE_MS;
  const now = pageNow();
  for (const [id, elt] of outOfPage) {
    outOfPage.delete(id);
    const tile = keptTile(id);
    if (tile) patchTile(tile, elt, now);
    if (performance.now() >= until) break;
  }
  if (outOfPage.size) sliceSoon();
};
// The grid draws a tile: its held patch first.
beforeDrawing((tile, now) => {
  const elt = outOfPage.get(tile.id);
  if (!elt) return;
  outOfPage.delete(tile.id);
  patchTile(tile, elt, now);
});

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
