/* Thresholds: amber then red, for a tile's time in state and for the figures (KPIs,
 * queues), and the count of what is over its limit. */
import { config } from "./page.js";

const thresholds = config.thresholds || {};

function level(value, limits, lowIsBad) {
  if (!limits || value === null || Number.isNaN(value)) return "";
  if (lowIsBad) return value < limits.alarm ? "alarm" : value < limits.warn ? "warn" : "";
  return value >= limits.alarm ? "alarm" : value >= limits.warn ? "warn" : "";
}

// Written only when it changes (remembered in a property: the tick sets every tile's, in
// the page or not); 1 when the element is over a limit.
export function setLevel(elt, lvl) {
  if (elt.levelShown !== lvl) {
    elt.levelShown = lvl;
    if (elt.dataset.level !== lvl) elt.dataset.level = lvl;
  }
  return lvl ? 1 : 0;
}

// A tile's time in state (seconds, or null) against its limits (`data-limit`, read into
// `limitKey` when its timer is watched).
export function showTimeLevel(tile, seconds) {
  return setLevel(tile, level(seconds, thresholds[tile.limitKey], false));
}

// The figures with limits (`data-value`, `data-limit`): how many are over theirs.
export function showFigureLevels() {
  let breaches = 0;
  for (const id of ["kpis", "queues-list"]) {
    const root = document.getElementById(id);
    if (!root) continue;
    for (const elt of root.querySelectorAll("[data-value][data-limit]")) {
      const limits = thresholds[elt.dataset.limit];
      const value = elt.dataset.value === "" ? null : Number(elt.dataset.value);
      breaches += setLevel(elt, level(value, limits, limits?.low_is_bad));
    }
  }
  return breaches;
}

export function showBreaches(count) {
  const badge = document.getElementById("breaches");
  if (badge) {
    badge.dataset.count = String(count);
    badge.textContent = `${count} over limit`;
  }
}
