/* Freshness: browser to dashboard, and dashboard to service, in the page's status (#conn)
 * and on the body (`data-freshness`). */
import { hhmmss } from "./format.js";
import { config } from "./page.js";

const STALE_AFTER_S = config.stale_after_s; // no message for this long: the screen says so
const CLOSED_FOR_GOOD = Object.values(config.close); // htmx does not retry these
const conn = document.getElementById("conn");
const loadedAt = Date.now();
let socketState = "connecting";
let lastMessageAt = 0;

export function messageArrived() {
  lastMessageAt = Date.now();
}

export function socketOpened() {
  socketState = "open";
  showFreshness();
}

export function socketClosed(code) {
  socketState = CLOSED_FOR_GOOD.includes(code) ? "signed-out" : "closed";
  showFreshness();
}

export function showFreshness() {
  if (!conn) return;
  const upstream = document.getElementById("upstream");
  const upState = upstream ? upstream.dataset.state : "connecting";
  const age = lastMessageAt ? (Date.now() - lastMessageAt) / 1000 : null;
  const asOf = hhmmss(new Date(lastMessageAt || loadedAt));
  let state;
  let text;
  if (socketState === "signed-out") {
    state = "signed-out";
    text = "Signed out — sign in again";
  } else if (socketState !== "open") {
    state = "reconnecting";
    text =
      socketState === "connecting"
        ? `Connecting… showing the floor as of ${asOf}`
        : `Not live: showing the floor as of ${asOf} · reconnecting…`;
  } else if (upState !== "connected") {
    state = "upstream";
    const since = upstream && Date.parse(upstream.dataset.since);
    text = `Upstream disconnected${since ? ` since ${hhmmss(new Date(since))}` : ""}`;
  } else if (age !== null && age > STALE_AFTER_S) {
    state = "stale";
    text = `No update for ${Math.floor(age)} s`;
  } else {
    state = "live";
    text = age === null ? "Live" : `Live · updated ${Math.floor(age)} s ago`;
  }
  if (conn.dataset.state !== state) conn.dataset.state = state;
  if (document.body.dataset.freshness !== state) document.body.dataset.freshness = state;
  const label = conn.querySelector(".conn-text");
  if (label && label.textContent !== text) label.textContent = text;
  const link = conn.querySelector("a");
  if (link) link.hidden = state !== "signed-out";
}
