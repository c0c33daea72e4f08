/* Timers: each `data-since` parsed once, when its element arrives; the tick rewrites only
 * the ones in the viewport, and only the text that changed.
 *
 * A page whose socket says `data-timers="tv"` (the wallboard) shows whole minutes, and
 * nothing on it scrolls: a thousand tiles' timers then change about 17 times a second, not
 * a thousand (most tiles are in their first minute on a busy floor), so a slow TV's frame
 * repaints the tiles that changed, not every tile; and no IntersectionObserver computes
 * a thousand intersections each frame. */
import { clock, minutes } from "./format.js";
import { pageNow, socketElt } from "./page.js";
import { setLevel, showTimeLevel } from "./thresholds.js";

const timers = new Set(); // every timer element placed, until it is replaced
const onScreen = new Set(); // the timers in the viewport: the ones the ticker rewrites
const limited = new Set(); // tiles whose time in state has limits (the breach count)
const tv = socketElt?.dataset.timers === "tv";
const duration = tv ? minutes : clock;
const viewport =
  "IntersectionObserver" in window && !tv
    ? new IntersectionObserver((entries) => {
        for (const e of entries) {
          if (e.isIntersecting && timers.has(e.target)) {
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
  const text = s === null ? "–" : duration(s);
  const out = elt.timerOut;
  if (out.shown === text) return;
  out.shown = text;
  const node = out.firstChild;
  if (node && node.nodeType === Node.TEXT_NODE && !node.nextSibling) node.data = text;
  else out.textContent = text;
}

function showLimit(tile, now) {
  return showTimeLevel(tile, age(tile, now));
}

// Every timer in `root` (itself included), shown at `now` and followed from then on.
export function watch(root, now) {
  const found = root.querySelectorAll("[data-since]");
  for (const elt of root.dataset.since === undefined ? found : [root, ...found]) {
    if (elt.id === "upstream") continue; // the feed's state, not a timer
    elt.sinceMs = Date.parse(elt.dataset.since);
    elt.timerOut = elt.querySelector(".timer") || elt;
    showTime(elt, now);
    timers.add(elt);
    if (!viewport) onScreen.add(elt);
    else if (elt.isConnected) viewport.observe(elt); // once: observing again does nothing
    elt.limitKey = elt.dataset.limit;
    if (elt.limitKey) {
      limited.add(elt);
      showLimit(elt, now);
    } else if (limited.delete(elt)) setLevel(elt, "");
  }
}

export function forgetOne(elt) {
  if (!timers.delete(elt)) return;
  onScreen.delete(elt);
  limited.delete(elt);
  viewport?.unobserve(elt);
}

// A windowed grid's tile leaves the page, or comes back: the viewport observer's work each
// frame is per element observed, so only the timers in the page are (the tick still
// counts every tile's level).
function timersIn(root) {
  const found = [...root.querySelectorAll("[data-since]")];
  return root.dataset.since === undefined ? found : [root, ...found];
}
export function unobserveTimers(root) {
  if (!viewport) return;
  for (const elt of timersIn(root)) {
    viewport.unobserve(elt);
    onScreen.delete(elt);
  }
}
export function observeTimers(root, now) {
  if (!viewport) return;
  for (const elt of timersIn(root)) {
    if (!timers.has(elt)) continue;
    viewport.observe(elt);
    showTime(elt, now); // painted with the tile, not a frame later
  }
}

// The timers of an element that leaves the page.
export function forget(root) {
  if (root.dataset.since !== undefined) forgetOne(root);
  for (const elt of root.querySelectorAll("[data-since]")) forgetOne(elt);
}

// The timers on screen at `now`, and the tiles' levels: how many tiles are over a limit.
export function showTimers(now) {
  for (const elt of onScreen) showTime(elt, now);
  let breaches = 0;
  for (const tile of limited) breaches += showLimit(tile, now);
  return breaches;
}
