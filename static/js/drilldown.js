/* The agent and call pages: the agent's time in state, ticking; the call's recording,
 * asked for only when a person presses play (its address is short-lived and never in the
 * page before that).
 */
(() => {
  "use strict";

  /* ---- The agent now: time in state from the tile's data-since ---- */
  function clock(seconds) {
    const s = Math.max(0, Math.floor(seconds));
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const ss = String(s % 60).padStart(2, "0");
    return h ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
  }
  function tick() {
    for (const elt of document.querySelectorAll(".drill-now [data-since]")) {
      const t = Date.parse(elt.dataset.since);
      const out = elt.querySelector(".timer") || elt;
      const text = Number.isNaN(t) ? "–" : clock((Date.now() - t) / 1000);
      if (out.textContent !== text) out.textContent = text;
    }
  }
  if (document.querySelector(".drill-now")) {
    tick();
    setInterval(tick, 1000);
  }

  /* ---- The call's recording ---- */
  const button = document.getElementById("play-recording");
  if (!button) return;
  const audio = document.getElementById("recording");
  const status = document.getElementById("recording-status");

  function csrfToken() {
    const headers = JSON.parse(document.body.getAttribute("hx-headers") || "{}");
    return headers["X-CSRFToken"] || "";
  }
  async function ask() {
    const r = await fetch(button.dataset.ask, {
      method: "POST",
      headers: { "X-CSRFToken": csrfToken() },
      credentials: "same-origin",
      cache: "no-store",
    });
    const json = (r.headers.get("content-type") || "").includes("json");
    const answer = json ? await r.json() : {};
    if (r.ok && answer.url) return answer;
    const why = r.redirected ? "you are signed out: sign in again" : `HTTP ${r.status}`;
    throw new Error(answer.error || `The recording could not be fetched: ${why}.`);
  }
  button.addEventListener("click", async () => {
    button.disabled = true;
    status.textContent = "Asking the service for the recording…";
    try {
      const answer = await ask();
      audio.src = answer.url;
      audio.hidden = false;
      const until = answer.expires_at && new Date(answer.expires_at).toLocaleTimeString();
      status.textContent = until ? `Playing. The address works until ${until}.` : "Playing.";
      audio.play().catch(() => {}); // the browser may not start it: its controls remain
    } catch (error) {
      // The dashboard's own words, or the browser's when the dashboard did not answer.
      status.textContent = error.message;
      button.disabled = false;
    }
  });
  audio.addEventListener("error", () => {
    if (!audio.getAttribute("src")) return;
    status.textContent = "The recording's address has expired or failed: press play again.";
    button.disabled = false;
  });
})();
