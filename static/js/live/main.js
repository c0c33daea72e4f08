/* The live pages' entry module: follows the page's socket and starts the tick.
 *
 * The server renders the page with the floor as it is and pushes htmx-style out-of-band
 * fragments over the websocket (each a top-level element with a stable id). On the live
 * view and the wallboard (`data-paint="frame"` on the socket's element) painting.js takes
 * the messages from htmx's websocket extension and applies everything that arrived in one
 * pass per animation frame; other pages keep htmx's own swaps.
 *
 * What other scripts may use: "live:applied" (on the document, after each pass),
 * "live:tick" (on the document, each second, in the tick's pass: ticker.js), and
 * "live:frame" (dispatched on the document, detail.html: fragments a page fetched itself,
 * a whole floor at a moment, say, placed at once as the pushes are), with `data-live-at`
 * on an element for the moment the page shows (page.js). A module script runs after the
 * page is parsed and before htmx opens the socket.
 */
import "./csrf.js";
import { messageArrived, socketClosed, socketOpened } from "./freshness.js";
import { adoptRenderedTiles, applyFilters, followFilterForm, tidyGrid } from "./grid.js";
import { framePaint, pageNow, socketElt } from "./page.js";
import { applyNow, receive, tickSoon } from "./painting.js";
import { tick } from "./ticker.js";
import { watch } from "./timers.js";

if (framePaint) {
  socketElt.addEventListener("htmx:wsBeforeMessage", (e) => {
    e.preventDefault(); // painting.js applies it, with what else arrives before the frame
    messageArrived();
    receive(e.detail.message);
  });
}
if (socketElt) {
  socketElt.addEventListener("htmx:wsOpen", socketOpened);
  socketElt.addEventListener("htmx:wsClose", (e) => socketClosed(e.detail.event.code));
  socketElt.addEventListener("htmx:wsAfterMessage", messageArrived); // pages htmx swaps
}
document.addEventListener("live:frame", (e) => applyNow(e.detail.html));
// Pages whose pushes htmx swaps itself (a row it has not seen names its list).
document.body.addEventListener("htmx:oobErrorNoTarget", (e) => {
  const elt = e.detail.content;
  const list = elt?.dataset?.into && document.getElementById(elt.dataset.into);
  if (list) {
    list.appendChild(elt);
    watch(elt, pageNow());
  }
});

// The floor as the server rendered it: its tiles and timers, adopted once (a windowed
// grid's first: its tiles leave the page before the page's timers are watched).
adoptRenderedTiles();
watch(document.querySelector("main") || document.body, pageNow());
applyFilters();
followFilterForm(tidyGrid); // the grid drawn and counted again; the timers wait for the tick
tick();
setInterval(tickSoon, 1000);
