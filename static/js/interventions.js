/* Acting on the floor: the "Act" menu of agent tiles and call rows, and the session bar.
 *
 * Tiles and rows are pushed the same to everyone with a hidden "Act" button; this script
 * shows it where this person may act (#acting-data: role, teams; the server enforces the
 * same rules). The bar shows this person's session as the service's call.monitor events
 * put it in the pushed tiles and rows (.monitored spans), never what was only asked. One
 * request at a time: a double click sends one. */
(() => {
  "use strict";
  const source = document.getElementById("acting-data");
  const menu = document.getElementById("act-menu");
  const bar = document.getElementById("monitor-bar");
  if (!source || !menu || !bar) return;
  const can = JSON.parse(source.textContent);
  const note = document.getElementById("act-note");
  const out = menu.querySelector(".act-out");
  const NOTES = {
    monitor: "This service does not offer monitoring calls.",
    "agent-status": "This service does not offer setting agents' states.",
  };
  const MODES = { listen: "Listening", whisper: "Whispering", barge: "Barged in" };
  let busy = false;
  let current = null; // this person's session as last shown: {call, session, mode, state, started}

  function targetOf(button) {
    const tile = button.closest(".agent");
    if (tile) {
      return {
        agent: tile.id.slice("agent-".length),
        name: tile.dataset.name || "this agent",
        team: tile.dataset.team || "",
        call: tile.dataset.state === "on_call" ? button.dataset.call || "" : "",
      };
    }
    const row = button.closest("li[id^='call-']");
    if (row) {
      return {
        call: row.hasAttribute("data-live") ? row.id.slice(5) : "",
        team: row.dataset.team || "",
      };
    }
    return {
      call: button.dataset.call || "",
      team: button.dataset.team || "",
      modes: button.dataset.modes,
    };
  }

  function allowed(t) {
    if (can.teams.length && !can.teams.includes(t.team)) return false;
    return Boolean((t.call && can.monitor) || (t.agent && can.state));
  }

  function reveal(root) {
    const buttons = root.matches?.(".act") ? [root] : root.querySelectorAll?.(".act") || [];
    for (const button of buttons) button.hidden = !allowed(targetOf(button));
  }

  function showNote() {
    const said = [!can.monitor && NOTES.monitor, !can.state && NOTES["agent-status"]];
    note.textContent = said.filter(Boolean).join(" ");
    note.hidden = !note.textContent;
  }

  let opened = null;
  function open(button) {
    const t = targetOf(button);
    opened = t;
    menu.querySelector("#act-title").textContent = t.agent ? t.name : "This call";
    const monitorForm = menu.querySelector(".act-monitor");
    monitorForm.hidden = !(t.call && can.monitor);
    monitorForm.action = t.call ? `/calls/${encodeURIComponent(t.call)}/monitor/` : "";
    menu.querySelector(".act-dial").hidden = can.dial;
    menu.querySelector(".act-barge").hidden = t.modes === "listen whisper";
    const stateForm = menu.querySelector(".act-state");
    stateForm.hidden = !(t.agent && can.state);
    stateForm.action = t.agent ? `/agents/${encodeURIComponent(t.agent)}/state/` : "";
    menu.querySelector(".act-sign-out").hidden = !can.sign_out;
    out.textContent = "";
    menu.opener = button;
    menu.showModal();
  }

  async function send(form, submitter, url, where) {
    if (busy) return;
    busy = true;
    const body = new FormData(form, submitter); // before the buttons are disabled: a disabled one is left out
    const buttons = [...form.querySelectorAll("button")];
    for (const b of buttons) b.disabled = true;
    where.textContent = "Asking the service…";
    try {
      const r = await fetch(url, {
        method: "POST",
        body,
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      });
      const answer = r.headers.get("content-type")?.includes("json") ? await r.json() : null;
      if (!answer) {
        where.textContent =
          r.status === 403 ? "You may not do this." : `Failed (HTTP ${r.status}).`;
        return;
      }
      where.textContent = answer.message;
      where.dataset.ok = String(answer.ok);
      if (answer.ok && body.get("monitor_dial")) can.dial = true;
      if (answer.need_dial) menu.querySelector(".act-dial").hidden = false;
      if (answer.hidden) {
        can[answer.hidden === "monitor" ? "monitor" : "state"] = false;
        reveal(document);
        showNote();
      }
    } catch {
      where.textContent = "The dashboard could not be reached; nothing was asked.";
    } finally {
      busy = false;
      for (const b of buttons) b.disabled = false;
    }
  }

  document.addEventListener("click", (e) => {
    const button = e.target.closest?.(".act");
    if (button && !button.hidden) open(button);
  });
  for (const form of menu.querySelectorAll("form[method='post']")) {
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      if (opened) send(form, e.submitter, form.action, out);
    });
  }
  // Back to the button that opened it, or to its successor: a push may have replaced the row.
  menu.addEventListener("close", () => {
    const opener = menu.opener;
    const home = opener?.closest("[id]")?.id;
    const again = opener?.isConnected ? opener : home && document.getElementById(home);
    (again?.matches(".act") ? again : again?.querySelector(".act"))?.focus();
  });

  // ---- The session bar --------------------------------------------------------------------
  const barForm = bar.querySelector("form");
  barForm.addEventListener("submit", (e) => {
    e.preventDefault();
    if (!current) return;
    const call = encodeURIComponent(current.call);
    const hangUp = e.submitter?.name === "hang_up";
    const url = hangUp ? `/calls/${call}/monitor/end/` : `/calls/${call}/monitor/`;
    send(barForm, e.submitter, url, bar.querySelector(".bar-out"));
  });

  function mine() {
    const spans = document.querySelectorAll(
      `.monitored[data-supervisor="${CSS.escape(can.user)}"]`,
    );
    const span = current
      ? [...spans].find((s) => s.dataset.session === current.session) || spans[0]
      : spans[0];
    if (!span) return null;
    const d = span.dataset;
    return {
      call: d.call,
      session: d.session,
      mode: d.mode,
      state: d.state,
      started: Date.parse(d.started),
    };
  }

  function paintBar() {
    const found = mine();
    if (found) current = found;
    else if (current && current.state !== "ended")
      current = { ...current, state: "ended", ended: Date.now() };
    bar.hidden = !current;
    if (!current) return;
    bar.dataset.state = current.state;
    bar.dataset.mode = current.mode;
    bar.dataset.call = current.call;
    bar.querySelector(".bar-mode").textContent = MODES[current.mode] || current.mode;
    bar.querySelector(".bar-state").textContent =
      { dialing: "Dialling", connected: "Connected", ended: "Ended" }[current.state] ||
      current.state;
    for (const b of bar.querySelectorAll("button[name='mode']")) {
      b.setAttribute("aria-pressed", String(b.value === current.mode));
      b.disabled = current.state === "ended" || busy;
    }
    bar.querySelector("button[name='hang_up']").disabled = current.state === "ended" || busy;
    tick();
  }

  function tick() {
    if (!current || Number.isNaN(current.started)) return;
    const upTo = current.ended || Date.now();
    const s = Math.max(0, Math.floor((upTo - current.started) / 1000));
    bar.querySelector(".bar-time").textContent =
      `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  }

  let queued = false;
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) if (n.nodeType === 1) reveal(n);
    if (!queued) {
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        paintBar();
      });
    }
  }).observe(document.body, { childList: true, subtree: true });
  setInterval(tick, 1000);
  reveal(document);
  showNote();
  paintBar();
})();
