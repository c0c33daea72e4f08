"""Where a throttled 4K wallboard spends its main thread: one window of the floor's load
(1,000 agents, 200 events/s, a few socket clients) with a Chrome trace and the JS sampling
profiler running, summed by what the renderer did.

    python -m bench.paint_trace --throttle 4 --trace /tmp/tv.json

Prints the page's paint latency (the bench's probe), the main thread's time per trace
event (self time: a layout inside a script counts as layout) and the script functions that
took the most. Not a figure for the targets (`make bench` is): a tool to find the cost.
"""

import argparse
import json
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench import browser
from bench.run import KIOSK, Scenario, Setup

CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8.execute"]
TASKS = ("RunTask", "ThreadControllerImpl::RunTask")
# Tiles written per frame (any attribute, child or text of a tile), summed over the window:
# the tiles a frame repaints. And the tiles' ages at the end (how many timers tick seconds).
TILE_WRITES = """
(() => {
  let touched = new Set(), writes = 0, frames = 0, on = false, asked = 0, moves = 0;
  const send = WebSocket.prototype.send; // the wallboard asking for whole panels
  WebSocket.prototype.send = function (m) {
    if (on && String(m).includes('"behind"')) asked += 1;
    return send.call(this, m);
  };
  const after = new MessageChannel();
  after.port1.onmessage = () => {
    if (on) { writes += touched.size; frames += 1; }
    touched = new Set();
  };
  (function loop() { after.port2.postMessage(0); requestAnimationFrame(loop); })();
  new MutationObserver((records) => {
    for (const r of records) {
      const elt = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      const tile = elt && elt.closest(".agent");
      if (tile) touched.add(tile);
      if (on && r.attributeName === "style" && r.target === tile) moves += 1; // placed anew
    }
  }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  window.__writes = {
    start() { on = true; writes = 0; frames = 0; moves = 0; },
    stop() {
      on = false;
      const ages = [...document.querySelectorAll("#agents .agent")].map(
        (t) => (Date.now() - Date.parse(t.dataset.since)) / 1000);
      const young = ages.filter((a) => a < 60).length;
      return { writes, frames, asked, moves, tiles: ages.length, under_a_minute: young };
    },
  };
})();
"""


def main_thread_events(trace: Path) -> list[dict]:
    """The complete events of the measured page's main thread (the last renderer's)."""
    events = json.loads(trace.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    names = [e for e in events if e.get("name") == "thread_name"]
    main = [(e["pid"], e["tid"]) for e in names if e["args"]["name"] == "CrRendererMain"][-1]
    mine = [e for e in events if (e.get("pid"), e.get("tid")) == main and e.get("ph") == "X"]
    return sorted((e for e in mine if "dur" in e), key=lambda e: (e["ts"], -e["dur"]))


def self_times(events: list[dict], key: str = "dur") -> tuple[Counter, Counter]:
    """Each event name's self time (its duration less its children's) and count, in µs;
    with `key="tdur"`, the thread's CPU time instead of the wall clock's."""
    own, count, stack = Counter(), Counter(), []
    for e in events:
        while stack and stack[-1][0]["ts"] + stack[-1][0]["dur"] <= e["ts"]:
            stack.pop()
        if stack:
            own[stack[-1][0]["name"]] -= e.get(key, 0)
        stack.append((e, None))
        own[e["name"]] += e.get(key, 0)
        count[e["name"]] += 1
    return own, count


def script_times(profile: dict) -> Counter:
    """The JS profile's self time per function (name, file, line), in µs."""
    nodes = {n["id"]: n["callFrame"] for n in profile["nodes"]}
    out = Counter()
    for node, delta in zip(profile["samples"], profile["timeDeltas"], strict=True):
        frame = nodes[node]
        where = frame["url"].rsplit("/", 1)[-1]
        out[f"{frame['functionName'] or '(anonymous)'} {where}:{frame['lineNumber'] + 1}"] += delta
    return out


def layers(cdp) -> int:
    """The page's composited layers now (CDP LayerTree, enabled only for this count)."""
    got = []
    cdp.on("LayerTree.layerTreeDidChange", lambda e: got.append(len(e.get("layers") or [])))
    cdp.send("LayerTree.enable")
    deadline = time.monotonic() + 10
    while not got and time.monotonic() < deadline:
        cdp.send("Runtime.evaluate", {"expression": "1"})  # lets the events through
        time.sleep(0.2)
    cdp.send("LayerTree.disable")
    return got[-1] if got else -1


def passes_and_frames(events: list[dict]) -> dict[str, list[float]]:
    """The main thread's own CPU (ms) of each top-level task that ran a pass
    (`applyArrived`: the pushes held, or the one-second tick, with the frame it drew), and
    of each other task that drew a frame (the frames outside the passes: timers,
    animations, the probe's frame loop)."""
    tasks, end = [], -1
    for e in events:
        if e["name"] in TASKS and e["ts"] >= end:
            tasks.append(e)
            end = e["ts"] + e["dur"]
    got = {"pass": [], "frame": []}
    i = 0
    for task in tasks:
        while i < len(events) and events[i]["ts"] < task["ts"]:
            i += 1
        j, names, is_pass = i, set(), False
        while j < len(events) and events[j]["ts"] < task["ts"] + task["dur"]:
            names.add(events[j]["name"])
            is_pass |= "applyArrived" in str(events[j].get("args", {}).get("data", {}))
            j += 1
        kind = "pass" if is_pass else "frame" if names & {"Layerize", "Paint"} else None
        if kind:
            got[kind].append(task.get("tdur", 0) / 1e3)
    return got


def report(got: dict, writes: dict, events: list[dict], profile: dict, top: int, layer_n: int):
    paints = got["paints"]
    seconds = got["seconds"] or 1
    print(
        f"painted {len(paints)}, p50 {browser.quantile(paints, 0.5)} ms,"
        f" p99 {browser.quantile(paints, 0.99)} ms, {got['frames'] / seconds:.1f} fps,"
        f" catching up in {100 * got['behindFrames'] / max(1, got['frames']):.0f} % of frames"
    )
    busy = sum(e["dur"] for e in events if e["name"] in TASKS) / 1e6
    # The thread's own CPU time: neither the throttling's pauses nor the other processes
    # that share the machine count in it, so it compares code on a loaded machine.
    cpu = sum(e.get("tdur", 0) for e in events if e["name"] in TASKS) / 1e6
    print(f"main thread: {busy:.2f} s of tasks in {seconds:.1f} s, {cpu:.2f} s of its CPU")
    print(f"  {1000 * cpu / max(1, len(paints)):.2f} ms of CPU per painted change")
    split = passes_and_frames(events)
    for kind, label in (("pass", "passes"), ("frame", "frames outside the passes")):
        ms = split[kind]
        print(
            f"  {label}: {len(ms)}, {sum(ms) / 1e3:.2f} s of CPU,"
            f" {sum(ms) / max(1, len(ms)):.1f} ms each"
        )
    layerize = [e["dur"] for e in events if e["name"] == "Layerize"]
    print(
        f"  {layer_n} composited layers after the window; Layerize {len(layerize)} times,"
        f" {sum(layerize) / 1e3 / max(1, len(layerize)):.1f} ms each"
    )
    print(
        f"  {1000 * busy / max(1, len(paints)):.1f} ms of tasks per painted change;"
        f" {writes['writes'] / seconds:.0f} tiles repainted a second"
        f" ({writes['writes'] / max(1, writes['frames']):.0f} a frame);"
        f" {writes['under_a_minute']} of {writes['tiles']} tiles in their first minute;"
        f" asked for whole panels {writes['asked']} times;"
        f" {writes['moves'] / seconds:.0f} tiles moved a second"
    )
    own, count = self_times(events)
    own_cpu, _ = self_times(events, "tdur")
    print("  task time s, its CPU s, per event")
    for name, us in own.most_common(top):
        print(f"  {us / 1e6:7.2f} {own_cpu[name] / 1e6:7.2f}  {name} (x{count[name]})")
    print("script, self time:")
    for name, us in script_times(profile).most_common(top):
        if not name.startswith("("):  # (program), (idle), (garbage collector)
            print(f"  {us / 1e6:7.2f} s  {name}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--throttle", type=float, default=4, help="CPU throttling rate")
    p.add_argument("--seconds", type=float, default=15, help="the window's length")
    p.add_argument("--clients", type=int, default=10, help="socket clients beside the page")
    p.add_argument("--trace", type=Path, help="keep the Chrome trace here (chrome://tracing)")
    p.add_argument("--top", type=int, default=15)
    p.add_argument("--screenshot", type=Path, help="the page at the window's end, here (PNG)")
    p.add_argument(
        "--after",
        type=int,
        default=0,
        help="windows of load run before the page opens (the floor's history)",
    )
    p.add_argument(
        "--quiet",
        action="store_true",
        help="no events in the window: what the page's own tick costs",
    )
    a = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="trace-") as tmp:
        trace = a.trace or Path(tmp) / "trace.json"
        load = Scenario("paint_trace", 1000, 200, a.clients, a.seconds)
        setup = Setup("dashboard", load, Path(tmp))
        chromium = browser.Browser()
        try:
            token = setup.server.manage("shell", "-c", KIOSK).split("kiosk ", 1)[1].split()[0]
            url = setup.server.url
            cookies = [{"name": k, "value": v, "url": url} for k, v in setup.cookies.items()]
            for _ in range(a.after):
                setup.window(load.events_per_s, load.seconds)
            page = browser.Page("tv", f"/wallboard/{token}/", 3840, 2160, throttle=a.throttle)
            context, tab, cdp = chromium.open(url, page, cookies, TILE_WRITES)
            tab.evaluate("window.__probe.start(); window.__writes.start()")
            chromium.chromium.start_tracing(page=tab, path=str(trace), categories=CATEGORIES)
            cdp.send("Profiler.enable")
            cdp.send("Profiler.start")
            if a.quiet:
                time.sleep(a.seconds)
            else:
                setup.window(load.events_per_s, load.seconds)
            profile = cdp.send("Profiler.stop")["profile"]
            chromium.chromium.stop_tracing()
            got = tab.evaluate("window.__probe.stop()")
            writes = tab.evaluate("window.__writes.stop()")
            layer_n = layers(cdp)
            if a.screenshot:
                tab.screenshot(path=str(a.screenshot), timeout=120_000)
            context.close()
        finally:
            chromium.close()
            setup.stop()
        report(got, writes, main_thread_events(trace), profile, a.top, layer_n)


if __name__ == "__main__":
    main()
