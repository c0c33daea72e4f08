/* The one-second tick: the timers on screen, the levels and the count over a limit, the
 * grid's order and count, the freshness; and the wallboard's clock. */
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
}

export function showClock() {
  const c = document.getElementById("clock");
  if (c) c.textContent = hhmmss(new Date());
}
