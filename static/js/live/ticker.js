/* The one-second tick: the timers on screen, the levels and the count over a limit, the
 * grid's order and count, the freshness, the wallboard's clock, and "live:tick" (on the
 * document) for the page's own second's work. All of it in the tick's pass: a page on a
 * quiet floor renders once a second, not once per timer (a slow TV's frame at 4K costs
 * its layers and paint whatever it draws). */
import { hhmmss } from "./format.js";
import { showFreshness } from "./freshness.js";
import { tidyGrid } from "./grid.js";
import { pageNow } from "./page.js";
import { showBreaches, showFigureLevels } from "./thresholds.js";
import { showTimers } from "./timers.js";

export function tick() {
  const breaches = showTimers(pageNow());
  showBreaches(breaches + showFigureLevels());
  tidyGrid();
  showFreshness();
  showClock();
  document.dispatchEvent(new CustomEvent("live:tick"));
}

function showClock() {
  const c = document.getElementById("clock");
  const text = c && hhmmss(new Date());
  if (c && c.textContent !== text) c.textContent = text;
}
