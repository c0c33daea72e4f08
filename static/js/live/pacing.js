/* The pace of the passes that apply the pushes.
 *
 * At most half of the main thread goes to them: after a pass, the next waits as long as
 * the last one took (its script, style, layout and paint, up to the frame after it). A
 * quiet floor's push is painted in the next frame; a busy one's are merged into fewer,
 * larger passes on a slow machine (a TV's stick PC) instead of queueing behind each other.
 * A page no one scrolls or clicks waits a share of that (`data-pause` on its socket's
 * element: the wallboard's 0.5, two thirds of its thread for the passes): a change waits
 * for the rest of the pass under way, the pause and its own pass, so a shorter pause is a
 * shorter wait, and a third of the thread stays for the socket and the timers.
 *
 * A screen that cannot keep up: when changes wait longer than BEHIND_MS for their pass,
 * the screen says it is catching up: each pass then applies everything held, panel by
 * panel, and the next waits twice as long as the last took, so the timers, the clock and
 * the socket keep their share. Nothing is dropped: the newest fragment of each tile wins,
 * so a pass's work is bounded by the panel's size however far behind it was. It says so
 * until passes are prompt. */
import { paceSort } from "./grid.js";
import { socketElt } from "./page.js";

const BEHIND_MS = 1000;
const PAUSE = Math.min(1, Number(socketElt?.dataset.pause) || 1); // of the last pass's cost
const afterFrame = new MessageChannel(); // a task after the frame's rendering
let passStartedAt = 0;
let nextPassAt = 0;
let oldestAt = 0; // when the oldest message not yet applied arrived
let catchingUp = false;
let promptPasses = 0;
let lastCost = 0; // the last pass's, from its start to the task after its frame

afterFrame.port1.onmessage = () => {
  const now = performance.now();
  const cost = now - passStartedAt;
  lastCost = cost;
  nextPassAt = now + cost * (catchingUp ? 2 : PAUSE);
  paceSort(now, cost);
};

// How long the next pass should wait (0 or less: none).
export function passWait() {
  return nextPassAt - performance.now();
}

// A message arrived while none was held.
export function firstHeld() {
  oldestAt = performance.now();
}

// A pass starts: `withChanges`, it applies what was held (else it only ticks).
export function startPass(withChanges) {
  passStartedAt = performance.now();
  afterFrame.port2.postMessage(0);
  if (withChanges) {
    paceCatchingUp(passStartedAt);
    oldestAt = 0;
  } else if (catchingUp) {
    paceCatchingUp(passStartedAt); // nothing waits: a prompt pass
  }
}

function paceCatchingUp(now) {
  // A change waits for the pause after the last pass and for its own pass
  const held = oldestAt ? now - oldestAt : 0;
  const waited = Math.max(held, (1 + PAUSE) * lastCost);
  if (waited > BEHIND_MS) {
    catchingUp = true;
    promptPasses = 0;
  } else if (catchingUp && held < BEHIND_MS / 2 && ++promptPasses >= 5) {
    catchingUp = false;
  }
  showCatchingUp(catchingUp, Math.max(waited, 3 * lastCost));
}

function showCatchingUp(on, everyMs) {
  let note = document.getElementById("catching-up");
  if (!on) {
    if (note) note.hidden = true;
    return;
  }
  if (!note) {
    note = document.createElement("div");
    note.id = "catching-up";
    note.className = "catching-up";
    note.setAttribute("role", "status");
    // within the status: the header's layout holds
    (document.getElementById("conn") || document.body).appendChild(note);
  }
  note.hidden = false;
  const every = Math.max(1, Math.round(everyMs / 1000));
  note.dataset.every = String(every); // for the wallboard (wallboard.js)
  const text = `Catching up: this screen shows changes every ${every} s · nothing is lost`;
  if (note.textContent !== text) note.textContent = text;
}
