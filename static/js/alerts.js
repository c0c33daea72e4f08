/* The alert tray in every signed-in page's header (templates/alerts/_tray.html).
 *
 * The tray itself is server-rendered at load and replaced by id when a push carries it
 * (htmx's out-of-band swap, then `htmx:oobAfterSwap` on the new element). This script
 * keeps the header's count, acknowledges an alert (POST with the CSRF token), and, for a
 * person who opted in, shows a browser notification (and plays a short sound, if chosen)
 * for each alarm not yet acknowledged, once per alert and level. Permission is asked for
 * only after a click on "Notify me of alarms"; when the browser blocks notifications or
 * sound, the tray says so.
 *
 * For a person with teams (`data-teams` on the menu: their teams, or the live view's scope)
 * the tray shows their teams' alerts first (each team's agents are one alert per rule),
 * then everyone's (queues, the floor), and counts them from the tray's counts per team:
 * one tray is rendered for everyone. A group's notification fires once per level, however
 * many agents join it.
 */
(() => {
  "use strict";

  const menu = document.getElementById("alerts-menu");
  if (!menu) return;
  const user = menu.dataset.user || "";
  const PREFS = `dashboard.alerts.prefs.${user}`;
  const SEEN = `dashboard.alerts.seen.${user}`;
  const notifyButton = document.getElementById("alert-notify");
  const soundBox = document.getElementById("alert-sound");
  const statusLine = document.getElementById("alert-notify-status");
  const supported = "Notification" in window;
  const prefs = read(PREFS, { notify: false, sound: false });
  const teams = menu.dataset.teams ? new Set(menu.dataset.teams.split(",")) : null;
  let audio = null;
  let soundNote = "";
  let refused = false; // asked after a click, and the browser did not allow it

  function read(key, fallback) {
    try {
      return JSON.parse(localStorage.getItem(key)) ?? fallback;
    } catch {
      return fallback;
    }
  }
  function write(key, value) {
    try {
      localStorage.setItem(key, JSON.stringify(value));
    } catch {
      /* private mode: the choice lasts this page only */
    }
  }

  /* ---- What the tray says about notifications ---- */
  function describe() {
    let text;
    if (!supported) {
      notifyButton.hidden = true;
      text = "This browser has no notifications: alarms show in this tray only.";
    } else if (Notification.permission === "denied" || (refused && !prefs.notify)) {
      notifyButton.textContent = "Notify me of alarms";
      text =
        "The browser blocks notifications for this site: allow them in its site settings. Alarms show in this tray only.";
    } else if (prefs.notify && Notification.permission === "granted") {
      notifyButton.textContent = "Stop notifying me";
      text = `Alarm notifications on${prefs.sound ? ", with sound" : ""}.`;
    } else {
      notifyButton.textContent = "Notify me of alarms";
      text = "Alarm notifications off.";
    }
    statusLine.textContent = soundNote ? `${text} ${soundNote}` : text;
    menu.dataset.notify = prefs.notify && supported ? Notification.permission : "off";
  }

  notifyButton.addEventListener("click", async () => {
    if (!supported) return describe();
    if (prefs.notify) {
      prefs.notify = false;
    } else {
      let permission = Notification.permission;
      if (permission === "default") {
        try {
          permission = await Notification.requestPermission();
        } catch {
          permission = Notification.permission;
        }
      }
      prefs.notify = permission === "granted";
      refused = !prefs.notify;
      markSeen(); // what is open now is already in the tray: notify of what comes next
    }
    write(PREFS, prefs);
    describe();
  });

  /* ---- A short sound, off by default ---- */
  soundBox.checked = Boolean(prefs.sound);
  soundBox.addEventListener("change", () => {
    prefs.sound = soundBox.checked;
    write(PREFS, prefs);
    soundNote = "";
    if (prefs.sound) beep(); // this click lets the page play sound
    describe();
  });

  function beep() {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) {
      soundNote = "This browser cannot play the alarm sound.";
      return describe();
    }
    audio = audio || new Context();
    const play = () => {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = 880;
      gain.gain.setValueAtTime(0.2, audio.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.4);
      osc.connect(gain).connect(audio.destination);
      osc.start();
      osc.stop(audio.currentTime + 0.4);
    };
    if (audio.state === "running") return play();
    audio.resume().catch(() => {});
    setTimeout(() => {
      if (audio.state === "running") {
        soundNote = "";
        play();
      } else {
        soundNote = "The browser blocked the alarm sound: click anywhere on this page to allow it.";
        document.addEventListener("click", () => audio.resume().catch(() => {}), { once: true });
      }
      describe();
    }, 100);
  }

  /* ---- The tray's entries: this person's ---- */
  function entries() {
    return [...document.querySelectorAll("#alert-tray .alert-entry")].filter((e) => !e.hidden);
  }
  // Hides the other teams' entries, puts this person's teams' first; their open and alarm counts.
  function scopeTray(tray) {
    const all = [Number(tray.dataset.count || 0), Number(tray.dataset.alarms || 0)];
    if (!teams) return all;
    let byTeam = {};
    try {
      byTeam = JSON.parse(tray.dataset.byTeam || "{}");
    } catch {
      /* an older tray: its counts stand */
    }
    for (const [team, [open, alarms]] of Object.entries(byTeam)) {
      if (!teams.has(team)) {
        all[0] -= open;
        all[1] -= alarms;
      }
    }
    let shown = 0;
    const theirs = [];
    for (const entry of tray.querySelectorAll(".alert-entry")) {
      entry.hidden = Boolean(entry.dataset.team) && !teams.has(entry.dataset.team);
      if (!entry.hidden) shown += 1;
      if (entry.dataset.team && !entry.hidden) theirs.push(entry);
    }
    const list = tray.querySelector(".alert-list");
    for (const entry of theirs.reverse()) list.prepend(entry); // their teams' first, in order
    const more = tray.querySelector(".alert-more");
    if (more) {
      more.hidden = all[0] <= shown;
      more.querySelector("a").textContent = `All ${all[0]} open alerts`; // the page: theirs too
    }
    const none = tray.querySelector(".alert-none");
    if (none) none.hidden = shown > 0;
    return all;
  }
  function keyOf(entry) {
    return `${entry.dataset.id}:${entry.dataset.level}`;
  }
  function markSeen() {
    write(SEEN, entries().map(keyOf));
  }

  function update() {
    const tray = document.getElementById("alert-tray");
    const count = document.getElementById("alert-count");
    if (!tray || !count) return;
    const [open, alarms] = scopeTray(tray);
    count.textContent = String(open);
    count.dataset.count = String(open);
    count.dataset.alarms = String(alarms);
    const seen = new Set(read(SEEN, []));
    const now = entries();
    for (const entry of now) {
      const key = keyOf(entry);
      if (seen.has(key)) continue;
      if (entry.dataset.level === "alarm" && !entry.dataset.acked) notify(entry);
    }
    write(SEEN, now.map(keyOf)); // only what is open: the list never grows
  }

  function notify(entry) {
    if (!prefs.notify || !supported || Notification.permission !== "granted") return;
    try {
      const shown = new Notification("Alarm", {
        body: entry.querySelector(".alert-text")?.textContent ?? "",
        tag: `alert-${entry.dataset.id}`, // one per alert, across tabs
      });
      const link = entry.querySelector("a");
      shown.onclick = () => {
        window.focus();
        if (link) window.location.assign(link.href);
      };
    } catch {
      statusLine.textContent = "The browser refused to show a notification.";
    }
    if (prefs.sound) beep();
  }

  /* ---- Acknowledge ---- */
  function csrfToken() {
    try {
      return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || "";
    } catch {
      return "";
    }
  }
  menu.addEventListener("click", async (e) => {
    const button = e.target.closest(".alert-ack");
    if (!button) return;
    button.disabled = true;
    try {
      const answer = await fetch(button.dataset.ackUrl, {
        method: "POST",
        credentials: "same-origin",
        headers: { "X-CSRFToken": csrfToken(), "X-Requested-With": "fetch" },
      });
      button.textContent = answer.ok ? "Acknowledged" : "Already acknowledged or cleared";
    } catch {
      button.disabled = false;
      button.textContent = "Not sent: try again";
    }
  });

  document.addEventListener("htmx:oobAfterSwap", (e) => {
    if (e.target.id === "alert-tray") update();
  });
  describe();
  update();
})();
