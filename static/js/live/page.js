/* What the page tells the live modules: the server's limits, labels and close codes
 * (#live-config, from dashboard/live/browser.py), the socket it follows, and the moment it
 * shows. */

export const config = JSON.parse(document.getElementById("live-config")?.textContent || "{}");

export const socketElt = document.querySelector("[ws-connect]");

// The live view and the wallboard (`data-paint="frame"`) have their pushes applied once per
// animation frame; other pages keep htmx's own swaps.
export const framePaint = socketElt?.dataset.paint === "frame";

// A page that shows a past moment says which in `data-live-at`: its timers count up to
// that moment, not to now.
const shownAt = document.querySelector("[data-live-at]");
export function pageNow() {
  return shownAt ? Date.parse(shownAt.dataset.liveAt) : Date.now();
}
