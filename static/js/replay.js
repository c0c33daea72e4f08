/* The floor replay's controls: a moment chosen on the slider, played at 1x, 10x or 60x, or
 * stepped change by change. Each moment's floor comes from /replay/moment/ as the live
 * view's fragments, which the live modules place as they place the live pushes
 * ("live:frame"), its timers counting up to the moment shown (`data-live-at`).
 * The moment is kept in the URL (?at=), so a link shows the same floor.
 */
(() => {
  "use strict";

  const form = document.getElementById("replay");
  if (!form) return;
  const root = document.querySelector("[data-live-at]");
  const slider = document.getElementById("replay-at");
  const shown = document.getElementById("replay-time");
  const note = document.getElementById("replay-note");
  const previous = document.getElementById("replay-previous");
  const next = document.getElementById("replay-next");
  const play = document.getElementById("replay-play");
  const speed = document.getElementById("replay-speed");
  const day = document.getElementById("replay-day");
  const badge = document.querySelector('.conn[data-state="replay"] .conn-text');
  const STEP_MS = 500; // while playing: a frame asked for this often at most
  let asked = 0; // the newest request: older answers are dropped
  let playing = false;

  function seconds() {
    return Number(slider.value);
  }

  // `at`: an ISO time as the server wrote it (a change's, to the microsecond) or a Date's.
  async function show(at) {
    const ticket = ++asked;
    const url = `${slider.dataset.moment}?at=${encodeURIComponent(at)}`;
    const response = await fetch(url, { headers: { Accept: "application/json" } });
    if (ticket !== asked) return false;
    if (!response.ok) {
      note.textContent = "This moment could not be shown.";
      return false;
    }
    const frame = await response.json();
    if (ticket !== asked) return false;
    root.dataset.liveAt = frame.at;
    slider.min = frame.low;
    slider.max = frame.high;
    slider.value = Math.floor(Date.parse(frame.at) / 1000);
    slider.setAttribute("aria-valuetext", frame.label);
    shown.textContent = frame.label;
    if (badge) badge.textContent = `Replay · ${frame.label}`;
    note.textContent = frame.note;
    for (const [button, at] of [
      [previous, frame.previous],
      [next, frame.next],
    ]) {
      button.dataset.at = at || "";
      button.disabled = !at;
    }
    const params = new URLSearchParams(location.search);
    params.set("at", frame.at);
    history.replaceState(null, "", `?${params}`);
    document.dispatchEvent(new CustomEvent("live:frame", { detail: { html: frame.html } }));
    return true;
  }

  let sliding = 0;
  slider.addEventListener("input", () => {
    clearTimeout(sliding);
    shown.textContent = new Date(seconds() * 1000).toLocaleTimeString();
    sliding = setTimeout(() => show(new Date(seconds() * 1000).toISOString()), 150);
  });
  for (const button of [previous, next]) {
    button.addEventListener("click", () => {
      if (button.dataset.at) show(button.dataset.at);
    });
  }
  day?.addEventListener("change", () => show(day.value));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    if (day) show(day.value);
  });

  /* ---- Playing: the moment moves on at the chosen speed, one frame at a time ---- */
  let run = 0; // each press of Play starts a run; a paused or older run's steps end
  function setPlaying(on) {
    playing = on;
    run += 1;
    play.textContent = on ? "Pause" : "Play";
    play.setAttribute("aria-pressed", String(on));
    if (on) step(run, performance.now(), Date.parse(root.dataset.liveAt));
    else asked++; // a frame still on its way is not shown: paused is paused
  }
  async function step(mine, startedAt, fromMs) {
    if (mine !== run) return;
    const elapsed = performance.now() - startedAt;
    const atMs = fromMs + elapsed * Number(speed.value);
    const end = Number(slider.max) * 1000;
    const ok = await show(new Date(Math.min(atMs, end)).toISOString());
    if (mine !== run) return;
    if (!ok || atMs >= end) {
      setPlaying(false);
      return;
    }
    const wait = Math.max(0, STEP_MS - (performance.now() - startedAt - elapsed));
    setTimeout(() => step(mine, startedAt, fromMs), wait);
  }
  play.addEventListener("click", () => setPlaying(!playing));
  speed.addEventListener("change", () => {
    if (playing) {
      setPlaying(false);
      setPlaying(true);
    }
  });
})();
