"""The `browser10k` scenario: the whole floor of 10,000 agents in one live view in Chromium.

The page (1920x1080) holds only the tiles in view and a margin (the windowed grid); the
floor moves at its own rate (1,000 events/s) with a few socket clients beside the page
(20: the page's own cost is measured, not the fan-out, which `floor10k` measures). One
window of load, in three phases, each measured apart by a probe added before the page's
scripts:

- still: the page at the top of the grid. Event-to-paint of the tiles in the page: a
  tile's `data-seq` patched is painted in the frame under way if the patch came inside its
  rendering steps, else in the next; latency from its `data-emitted` (the simulator's
  clock, same machine) to the first task after that frame. Tiles drawn into the window
  by a scroll are not counted: their events are older than the scroll.
- scroll: the page scrolls itself through the grid, a step each frame.
- filter: the name search and the state filter change four times a second.

Each phase reports frames per second, long tasks (over 50 ms, and over 100 ms), the
main thread's task time (Chromium's TaskDuration, CDP Performance metrics) and the DOM
mutations seen (records of a MutationObserver over the document: attributes, texts,
nodes added and removed), both also per push received. The JS heap is Chromium's
`Runtime.getHeapUsage` after the window, and after a garbage collection. Task time per
push and mutations per push depend little on the machine's load; latency and fps do.
"""

import os
import threading
from contextlib import contextmanager

from bench import browser

PROBE = (
    "(() => {"
    + browser.PAINT_CLOCK
    + """
  const seen = new Set();
  const arrived = new Map(); // a tile's id -> when the newest message holding it arrived
  let phase = null;
  const fresh = () => ({ paints: [], page: [], server: [], frames: 0, long: [], mutations: 0,
                         pushes: 0, bytes: 0, fragments: 0, changes: 0, t0: performance.now() });
  // A timer's text, which the ticker rewrites each second in view, is not counted
  const timerText = (r) => r.type === "characterData" &&
    r.target.parentElement?.closest(".timer, [data-since]:not(.agent)");
  let got = fresh();
  const changed = paintClock(
    () => { if (phase) got.frames += 1; },
    ([emitted, arrival], now) => {
      if (!phase) return;
      got.paints.push(now - emitted);
      if (arrival) { got.page.push(now - arrival); got.server.push(arrival - emitted); }
    },
  );
  const watcher = new MutationObserver((records) => {
    if (phase) got.mutations += records.length;
    for (const r of records) {
      if (phase && !timerText(r)) {
        got.changes += r.type === "childList" ? r.addedNodes.length + r.removedNodes.length : 1;
      }
      const tile = r.target;
      if (r.type !== "attributes" || r.attributeName !== "data-seq") continue;
      if (!tile.isConnected || !tile.classList.contains("agent") || !tile.dataset.emitted) continue;
      const key = `${tile.id}:${tile.dataset.seq}`;
      if (seen.has(key)) continue;
      seen.add(key);
      changed([Number(tile.dataset.emitted), arrived.get(tile.id)]);
    }
  });
  const everything = { subtree: true, childList: true, attributes: true, characterData: true };
  watcher.observe(document, everything);
  new PerformanceObserver((list) => {
    if (phase) for (const e of list.getEntries()) got.long.push(e.duration);
  }).observe({ type: "longtask" });
  // A message's arrival: before the page's own handler (on the socket's element) sees it
  document.addEventListener("htmx:wsBeforeMessage", (e) => {
    const message = e.detail.message || "";
    const now = Date.now();
    for (const [, id] of message.matchAll(/id="(agent-[^"]+)"/g)) arrived.set(id, now);
    if (!phase) return;
    got.pushes += 1;
    got.bytes += message.length;
    got.fragments += message.split('id="agent-').length - 1;
  }, true);
  const settle = () => new Promise((done) => setTimeout(done, 300));
  window.__probe10k = {
    start(name) { phase = name; got = fresh(); },
    stop() {
      phase = null;
      return { ...got, seconds: (performance.now() - got.t0) / 1000,
               tiles: document.querySelectorAll("#agents .agent").length,
               shown: document.getElementById("agents-shown")?.textContent || "" };
    },
    // Through the grid and back, `pxPerFrame` a frame, for `seconds`.
    scroll(seconds, pxPerFrame) {
      const until = performance.now() + seconds * 1000;
      let step = pxPerFrame;
      return new Promise((done) => {
        const go = () => {
          if (performance.now() >= until) { scrollTo(0, 0); settle().then(done); return; }
          const end = document.documentElement.scrollHeight - innerHeight;
          if ((step > 0 && scrollY >= end) || (step < 0 && scrollY <= 0)) step = -step;
          scrollBy(0, step);
          requestAnimationFrame(go);
        };
        requestAnimationFrame(go);
      });
    },
    // The tiles in the page patched `rounds` times to another state and back, through
    // the live modules' own entry (`live:frame`), each pass's microtasks (the page's
    // MutationObservers) run and its style and layout forced: the page's ms and DOM
    // changes (timers' texts aside) per tile patched. The probe's own observer rests.
    async patch(rounds) {
      watcher.disconnect();
      const tiles = [...document.querySelectorAll("#agents .agent")];
      const as = tiles.map((tile) => {
        const copy = tile.cloneNode(true);
        for (const name of ["style", "hidden", "data-level"]) copy.removeAttribute(name);
        for (const elt of copy.querySelectorAll(".timer, [data-since]")) elt.textContent = "";
        return copy;
      });
      const bs = as.map((a) => {
        const b = a.cloneNode(true);
        const away = b.dataset.state !== "paused";
        b.dataset.state = away ? "paused" : "available";
        b.dataset.since = new Date(Date.now() - 5000).toISOString();
        const label = b.querySelector(".state");
        if (label) label.innerHTML = `<span aria-hidden="true">${away ? "P" : "A"}</span> x`;
        return b;
      });
      const html = (list) => list.map((t) => t.outerHTML).join("");
      const passes = [html(bs), html(as)];
      let changes = 0;
      const count = (records) => {
        for (const r of records) {
          if (timerText(r)) continue;
          changes += r.type === "childList" ? r.addedNodes.length + r.removedNodes.length : 1;
        }
      };
      const observer = new MutationObserver(count);
      observer.observe(document.getElementById("agents"), everything);
      const times = [];
      for (let i = 0; i < rounds * 2; i += 1) {
        const t0 = performance.now();
        document.dispatchEvent(new CustomEvent("live:frame", { detail: { html: passes[i % 2] } }));
        await null; // the observers' microtasks, queued by the pass's first change
        void document.body.offsetHeight;
        times.push(performance.now() - t0);
      }
      count(observer.takeRecords());
      observer.disconnect();
      watcher.observe(document, everything);
      times.sort((a, b) => a - b);
      const n = tiles.length || 1;
      return { tiles: tiles.length, ms_per_tile: times[times.length >> 1] / n,
               min_ms_per_tile: times[0] / n, changes_per_tile: changes / (rounds * 2 * n) };
    },
    // The name search and the state filter, changed every `everyMs` for `seconds`.
    filter(seconds, everyMs) {
      const form = document.getElementById("filters");
      const q = form.elements.q, state = form.elements.state;
      const states = [...state.options].map((o) => o.value);
      const words = ["a", "an", "ann", "e", "el", "", "o", "r", ""];
      const until = performance.now() + seconds * 1000;
      let n = 0;
      return new Promise((done) => {
        const timer = setInterval(() => {
          n += 1;
          if (n % 2) q.value = words[n % words.length];
          else state.value = states[n % states.length];
          form.dispatchEvent(new Event("input", { bubbles: true }));
          if (performance.now() < until) return;
          clearInterval(timer);
          q.value = ""; state.value = "";
          form.dispatchEvent(new Event("input", { bubbles: true }));
          settle().then(done);
        }, everyMs);
      });
    },
  };
})();
"""
)
PATCH_ROUNDS = 20  # the tiles in the page to another state and back
METRICS = (
    "TaskDuration",
    "ScriptDuration",
    "LayoutDuration",
    "RecalcStyleDuration",
    "LayoutCount",
    "RecalcStyleCount",
)
TARGETS = {"paint_p99_ms": 250, "heap_mb": 150, "long_tasks_over_100ms_scrolling": 0, "fps": 60}


@contextmanager
def environment(**variables):
    """These settings for the dashboard the scenario starts (its env is this process's)."""
    before = {k: os.environ.get(k) for k in variables}
    os.environ.update({k: str(v) for k, v in variables.items()})
    try:
        yield
    finally:
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def metrics(cdp) -> dict:
    got = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return {name: got.get(name, 0.0) for name in METRICS}


def heap_mb(cdp) -> float:
    return round(cdp.send("Runtime.getHeapUsage")["usedSize"] / 2**20, 1)


def renderer_cpu_s(chromium) -> float:
    """The renderers' CPU seconds so far (the page's; it is the only one open)."""
    got = chromium.send("SystemInfo.getProcessInfo")["processInfo"]
    return sum(p["cpuTime"] for p in got if p["type"] == "renderer")


def phase(tab, cdp, chromium, name: str, run) -> dict:
    """One phase of the window: `run()` drives the page; its figures."""
    before = metrics(cdp)
    cpu = renderer_cpu_s(chromium)
    tab.evaluate(f"window.__probe10k.start({name!r})")
    run()
    got = tab.evaluate("window.__probe10k.stop()")
    spent = {k: v - before[k] for k, v in metrics(cdp).items()}
    seconds = got["seconds"] or 1
    pushes = got["pushes"] or 1
    fragments = got["fragments"] or 1
    cpu = renderer_cpu_s(chromium) - cpu
    long = got["long"]
    return {
        "seconds": round(seconds, 1),
        "pushes": got["pushes"],
        "push_kb": round(got["bytes"] / 1024 / pushes, 2),
        "tiles_received": got["fragments"],
        "tiles_in_page": got["tiles"],
        "shown": got["shown"],
        "painted": len(got["paints"]),
        "paint_p50_ms": browser.quantile(got["paints"], 0.5),
        "paint_p99_ms": browser.quantile(got["paints"], 0.99),
        # The page's share: from the message's arrival at the page to the paint; the rest
        # (emitted to arrival) is the simulator's, the dashboard's and the socket's
        "page_paint_p50_ms": browser.quantile(got["page"], 0.5),
        "page_paint_p99_ms": browser.quantile(got["page"], 0.99),
        "arrival_p99_ms": browser.quantile(got["server"], 0.99),
        "fps": round(got["frames"] / seconds, 1),
        "long_tasks": len(long),
        "long_tasks_over_100ms": sum(d > 100 for d in long),
        "longest_task_ms": round(max(long, default=0), 1),
        "longest_tasks_ms": [round(d) for d in sorted(long, reverse=True)[:5]],
        "layouts_per_frame": round(spent["LayoutCount"] / (got["frames"] or 1), 2),
        "style_recalcs_per_frame": round(spent["RecalcStyleCount"] / (got["frames"] or 1), 2),
        "main_busy_pct": round(100 * spent["TaskDuration"] / seconds, 1),
        "task_ms_per_push": round(1000 * spent["TaskDuration"] / pushes, 2),
        "script_ms_per_push": round(1000 * spent["ScriptDuration"] / pushes, 2),
        "style_layout_ms_per_push": round(
            1000 * (spent["RecalcStyleDuration"] + spent["LayoutDuration"]) / pushes, 2
        ),
        "mutations_per_push": round(got["mutations"] / pushes, 1),
        "task_ms_per_tile_received": round(1000 * spent["TaskDuration"] / fragments, 3),
        "renderer_cpu_ms_per_tile_received": round(1000 * cpu / fragments, 2),
        "dom_changes_per_frame": round(got["changes"] / (got["frames"] or 1), 1),
        "dom_changes_per_tile_painted": round(got["changes"] / (len(got["paints"]) or 1), 1),
    }


def measure(
    workdir,
    spawn=None,
    *,
    agents=10_000,
    rate=1000,
    clients=20,
    still_s=10,
    scroll_s=10,
    filter_s=8,
    window_from=None,
    viewport=(1920, 1080),
    margin_s=4,
):
    """The live view at `agents` during one window of `rate` events/s, still, scrolling and
    filtering (`window_from`: the dashboard's LIVE_WINDOW_FROM, else its own)."""
    from bench.run import Scenario, Setup  # bench.run lists this scenario

    workdir.mkdir(exist_ok=True)
    seconds = 2 + still_s + scroll_s + filter_s + margin_s  # the phases in the load, a margin
    load = Scenario("browser10k", agents, rate, clients, seconds)
    print(f"    {agents} agents, {rate} events/s, {clients} socket clients ...", flush=True)
    with environment(**({"LIVE_WINDOW_FROM": window_from} if window_from else {})):
        setup = Setup("dashboard", load, workdir)
    chromium = browser.Browser()
    try:
        url = setup.server.url
        context = chromium.chromium.new_context(
            viewport={"width": viewport[0], "height": viewport[1]}
        )
        context.add_cookies([{"name": k, "value": v, "url": url} for k, v in setup.cookies.items()])
        tab = context.new_page()
        errors = []
        tab.on("console", lambda m: m.type == "error" and errors.append(m.text))
        tab.add_init_script(PROBE)
        cdp = context.new_cdp_session(tab)
        cdp.send("Performance.enable")
        system = chromium.chromium.new_browser_cdp_session()
        tab.goto(url + "/", timeout=180_000)
        tab.wait_for_selector("#conn[data-state=live]", timeout=180_000)
        tab.wait_for_function(
            f"() => document.getElementById('agents-shown')?.textContent"
            f" === '{agents} of {agents} agents'",
            timeout=180_000,
        )
        tab.wait_for_timeout(2000)  # the first paint and its scripts' start settle
        loaded_heap = heap_mb(cdp)
        sockets = {}
        emitting = threading.Thread(
            target=lambda: sockets.update(setup.window(rate, seconds)), daemon=True
        )
        emitting.start()
        tab.wait_for_timeout(2000)  # the simulator resumed
        phases = {
            "still": phase(tab, cdp, system, "still", lambda: tab.wait_for_timeout(still_s * 1000)),
            "scroll": phase(
                tab,
                cdp,
                system,
                "scroll",
                lambda: tab.evaluate(f"__probe10k.scroll({scroll_s}, 60)"),
            ),
            "filter": phase(
                tab,
                cdp,
                system,
                "filter",
                lambda: tab.evaluate(f"__probe10k.filter({filter_s}, 250)"),
            ),
        }
        heap = heap_mb(cdp)
        dom = cdp.send("Memory.getDOMCounters")
        cdp.send("HeapProfiler.collectGarbage")
        heap_after_gc = heap_mb(cdp)
        emitting.join(timeout=seconds + 180)
        before = metrics(cdp)
        patched = tab.evaluate(
            f"__probe10k.patch({PATCH_ROUNDS})"
        )  # the floor still, the load over
        patch_spent = {k: v - before[k] for k, v in metrics(cdp).items()}
        context.close()
    finally:
        chromium.close()
        setup.stop()
    still, scroll, filtering = phases["still"], phases["scroll"], phases["filter"]
    return {
        "agents": agents,
        "events_per_s": rate,
        "socket_clients": clients,
        "viewport": f"{viewport[0]}x{viewport[1]}",
        "paint_p99_ms": still["paint_p99_ms"],
        "page_paint_p99_ms": still["page_paint_p99_ms"],  # from the push's arrival
        "arrival_p99_ms": still["arrival_p99_ms"],  # emitted to the push's arrival
        "heap_mb": heap,
        "heap_after_gc_mb": heap_after_gc,
        "heap_loaded_mb": loaded_heap,
        "dom_nodes": dom["nodes"],  # the page's and the kept tiles' (not in the JS heap)
        "long_tasks_over_100ms_scrolling": scroll["long_tasks_over_100ms"],
        "fps_still": still["fps"],
        "fps_scrolling": scroll["fps"],
        "fps_filtering": filtering["fps"],
        "task_ms_per_push": still["task_ms_per_push"],
        "task_ms_per_tile_received": still["task_ms_per_tile_received"],
        # Load-independent: the tiles in the page patched to another state and back
        "patch_ms_per_tile": round(patched["ms_per_tile"], 3),  # the passes' median
        "patch_ms_per_tile_min": round(patched["min_ms_per_tile"], 3),  # the least contended
        "patch_dom_changes_per_tile": round(patched["changes_per_tile"], 1),
        "patch_tiles": patched["tiles"],
        **{  # of the passes: script, and style and layout, per tile patched
            f"patch_{part}_ms_per_tile": round(
                1000
                * sum(patch_spent[m] for m in names)
                / (2 * PATCH_ROUNDS * (patched["tiles"] or 1)),
                3,
            )
            for part, names in (
                ("script", ["ScriptDuration"]),
                ("style_layout", ["RecalcStyleDuration", "LayoutDuration"]),
            )
        },
        "mutations_per_push": still["mutations_per_push"],
        "renderer_cpu_ms_per_tile_received": still["renderer_cpu_ms_per_tile_received"],
        "dom_changes_per_tile_painted": still["dom_changes_per_tile_painted"],
        "dom_changes_per_frame_scrolling": scroll["dom_changes_per_frame"],
        "phases": phases,
        "targets": TARGETS,
        "socket_p99_ms": sockets.get("p99_ms"),
        "lost": sockets.get("lost"),
        "console_errors": errors[:5],
        "load_average": round(os.getloadavg()[0], 2),
    }
