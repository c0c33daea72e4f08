/* Times as the live pages write them. */

// A duration: 4:05, or 1:04:05 from an hour.
export function clock(seconds) {
  const s = Math.floor(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

// A duration in whole minutes, for a screen read from across the room: <1m, 4m, or 1h04
// from an hour.
export function minutes(seconds) {
  const m = Math.floor(seconds / 60);
  if (!m) return "<1m";
  return m < 60 ? `${m}m` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}`;
}

// A moment of the day, in the browser's locale.
export function hhmmss(date) {
  return date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}
