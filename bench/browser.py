"""The `browser` scenarios: event-to-paint in a real Chromium page, beside the socket load.

Latency that counts ends at the frame the browser paints. A probe, added to the page
before its own scripts, watches the agent grid with a MutationObserver and keeps a
requestAnimationFrame loop (the page's frames per second). A tile that arrives is painted
in the frame under way when it arrived inside that frame's rendering steps, else in the
next one; its latency is taken, once per (agent, seq), in the first task after that
frame, from the `data-emitted` the tile carries (the simulator's emitted time, same clock).
The main thread's busy share is Chromium's own TaskDuration over the window (CDP
Performance metrics); long tasks (over 50 ms) are counted beside it.

Pages measured, each during one window of the scenario's load with the socket clients
connected: the live view at 1920x1080 and the wallboard's agent grid at 3840x2160, both
again under CPU throttling x4, the wallboard under x6 too (`Emulation.setCPUThrottlingRate`:
a TV's stick PC), applied once the page has loaded.

The 4K wallboard is measured one way wherever it is measured (`TV_PAGES`, the same pages
in the same order in the `browser` and `browser_tv` scenarios): each of its pages first
lives through a short window of the load, throttled, and that window's drain, then is
measured. What is measured is then the page as a TV runs it all day, its scripts warm and
its pacing settled under the throttle, not its first seconds, whatever came before it.
"""

from dataclasses import dataclass

from dashboard.testing.browsers import CHROMIUM, CHROMIUM_ARGS

# The page's frames, and when a change is painted: a change made inside a frame's rendering
# steps is painted in that frame, else in the next; it is counted in the first task after
# that frame. `paintClock(onFrame, onPainted)` returns `changed(item)`, which hands `item`
# and the time (epoch ms) to `onPainted` once painted. Both probes start with it.
PAINT_CLOCK = """
function paintClock(onFrame, onPainted) {
  const pending = [];  // [frameAtChange, inRender, item]
  let frame = 0, rendering = false;
  const after = new MessageChannel();
  after.port1.onmessage = () => {
    rendering = false;
    const now = Date.now();
    for (let i = pending.length - 1; i >= 0; i -= 1) {
      const [f, inRender, item] = pending[i];
      if (inRender || f < frame) {
        onPainted(item, now);
        pending.splice(i, 1);
      }
    }
  };
  function loop() {
    frame += 1;
    onFrame();
    rendering = true;
    after.port2.postMessage(0);
    requestAnimationFrame(loop);
  }
  requestAnimationFrame(loop);
  return (item) => pending.push([frame, rendering, item]);
}
"""

PROBE = (
    "(() => {"
    + PAINT_CLOCK
    + """
  const emitted = new Map();   // "agent:seq" -> emitted ms, tiles seen, not yet painted
  const paints = [];           // ms from emitted to painted
  let measuring = false, frames = 0, longMs = 0, longN = 0;
  let behindFrames = 0;        // frames while the page said it was catching up (live/pacing.js)
  const changed = paintClock(
    () => {
      if (!measuring) return;
      frames += 1;
      const note = document.getElementById("catching-up");
      if (note && !note.hidden) behindFrames += 1;
    },
    (at, now) => { if (measuring) paints.push(now - at); },
  );
  function seen(tile) {
    if (!tile.dataset || !tile.dataset.emitted || !tile.classList.contains("agent")) return;
    const key = `${tile.id}:${tile.dataset.seq}`;
    if (emitted.has(key)) return;
    const at = Number(tile.dataset.emitted); // epoch ms
    emitted.set(key, at);
    changed(at);
  }
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === "attributes") seen(r.target);
      for (const n of r.addedNodes) if (n.nodeType === 1) seen(n);
    }
  }).observe(document, {
    subtree: true, childList: true, attributes: true, attributeFilter: ["data-seq"],
  });
  new PerformanceObserver((list) => {
    if (!measuring) return;
    for (const e of list.getEntries()) { longMs += e.duration; longN += 1; }
  }).observe({ type: "longtask" });
  window.__probe = {
    start() { measuring = true; paints.length = 0; frames = 0; longMs = 0; longN = 0;
              behindFrames = 0; this.t0 = performance.now(); },
    stop() { measuring = false;
             return { paints: paints.slice(), frames, longMs, longN, behindFrames,
                      seconds: (performance.now() - this.t0) / 1000,
                      tiles: document.querySelectorAll("#agents .agent").length }; },
  };
})();
"""
)


@dataclass(frozen=True)
class Page:
    name: str
    path: str  # "" for the live view; the wallboard's kiosk path otherwise
    width: int
    height: int
    throttle: float = 1
    warmup_s: float = 0  # a window of the load this long, unmeasured, before the measured one


# The weakest screen: the wallboard's agent grid at 1,000 agents on a 4K TV, at full speed
# and on a TV's slow CPU; `wallboard_4k_x4` and `_x6` are the targets' pages.
TV_WARMUP_S = 5
TV_PAGES = (
    Page("wallboard_4k", "kiosk", 3840, 2160, warmup_s=TV_WARMUP_S),
    Page("wallboard_4k_x4", "kiosk", 3840, 2160, throttle=4, warmup_s=TV_WARMUP_S),
    Page("wallboard_4k_x6", "kiosk", 3840, 2160, throttle=6, warmup_s=TV_WARMUP_S),
)


def quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return round(values[min(len(values) - 1, int(q * len(values)))], 1)


class Browser:
    """One Chromium for the scenario; a fresh page (and context) for each measurement."""

    def __init__(self):
        from playwright.sync_api import sync_playwright

        self.pw = sync_playwright().start()
        self.chromium = self.pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)

    def open(self, url: str, page: Page, cookies: list[dict], *scripts: str):
        context = self.chromium.new_context(viewport={"width": page.width, "height": page.height})
        context.add_cookies(cookies)
        tab = context.new_page()
        tab.console_errors = []
        tab.on("console", lambda m: m.type == "error" and tab.console_errors.append(m.text))
        for script in (PROBE, *scripts):
            tab.add_init_script(script)
        cdp = context.new_cdp_session(tab)
        cdp.send("Performance.enable")
        # Loaded at full speed, then throttled: what is measured is the window, and a
        # throttled 4K page on a loaded machine may take longer than goto's wait to load.
        tab.goto(url + page.path, timeout=120_000)
        tab.wait_for_function(
            "() => document.querySelectorAll('#agents .agent').length > 0", timeout=120_000
        )
        if page.throttle != 1:
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": page.throttle})
        tab.wait_for_timeout(2000)  # the first paint and its scripts' start settle
        return context, tab, cdp

    def close(self):
        self.chromium.close()
        self.pw.stop()


def task_seconds(cdp) -> float:
    metrics = cdp.send("Performance.getMetrics")["metrics"]
    return next(m["value"] for m in metrics if m["name"] == "TaskDuration")


def measure_page(browser: Browser, url: str, page: Page, cookies: list[dict], window) -> dict:
    """Open the page, run `window(seconds)` (one window of load; the scenario's length if
    None) first for the page's warm-up if it has one, then measured, and report on it."""
    context, tab, cdp = browser.open(url, page, cookies)
    try:
        if page.warmup_s:
            window(page.warmup_s)
        tab.evaluate("window.__probe.start()")
        busy = task_seconds(cdp)
        sockets = window(None)
        busy = task_seconds(cdp) - busy
        got = tab.evaluate("window.__probe.stop()")
        errors = tab.console_errors[:5]
    finally:
        context.close()
    seconds = got["seconds"] or 1
    paints = got["paints"]
    return {
        "viewport": f"{page.width}x{page.height}",
        "cpu_throttle": page.throttle,
        "tiles": got["tiles"],
        "painted": len(paints),
        "paint_p50_ms": quantile(paints, 0.5),
        "paint_p99_ms": quantile(paints, 0.99),
        "paint_max_ms": max(paints, default=None),
        "main_busy_pct": round(100 * busy / seconds, 1),
        "long_task_pct": round(100 * got["longMs"] / 1000 / seconds, 1),
        "long_tasks": got["longN"],
        "fps": round(got["frames"] / seconds, 1),
        # the share of its frames the page spent saying it was catching up
        "catching_up_pct": round(100 * got["behindFrames"] / max(1, got["frames"]), 1),
        "socket_p99_ms": sockets.get("p99_ms"),
        "lost": sockets.get("lost"),
        "console_errors": errors,
    }


def summary(results: dict) -> str:
    rows = ["page              viewport   x  painted  p50     p99    busy%  fps"]
    for name, r in results.items():
        rows.append(
            f"{name:<17} {r['viewport']:<10} {r['cpu_throttle']:g} {r['painted']:>8}"
            f" {r['paint_p50_ms'] or 0:>6g} {r['paint_p99_ms'] or 0:>7g}"
            f" {r['main_busy_pct']:>6g} {r['fps']:>5g}"
        )
    return "\n".join(rows)
