"""What one frame of the 4K wallboard costs the renderer's main thread, with and without
CSS variants, interleaved in one page: a load-independent A/B for the wallboard's look.

    python -m bench.tv_frames "flat=.flat .agent { contain: strict; }"

Each variant is a name and rules under `.name` (a class set on <html> while it is
measured). The page (1,000 agents, 3840x2160, no throttling, no load) then makes four
kinds of change a frame apart, a dozen times per variant in turn: the clock's text, a
tile's level (paint only), a tile's timer text (layout too) and a tile's state (its
colours and its icon's text, as a push of a new state changes them). Printed per kind and
variant: the medians of the thread's own CPU (trace `tdur`) in each rendering step of the
frame that drew it (self times: a layout a script forced counts as layout). And a pass:
300 tiles pushed in new states, applied by the page's own scripts (`live:frame`), with
its script and the placing that follows (and how many tiles it moved). Not a figure for
the targets: a tool to compare the wallboard's CSS and scripts on a shared machine (JS
changes: two checkouts run side by side, in the same minutes; `--profile N` names the
script's costliest functions).
"""

import argparse
import json
import tempfile
from collections import defaultdict
from pathlib import Path
from statistics import median

from bench import browser
from bench.paint_trace import CATEGORIES, main_thread_events, script_times, self_times
from bench.run import KIOSK, Scenario, Setup

STEPS = ("Layerize", "Paint", "PrePaint", "Layout", "UpdateLayoutTree", "Commit")
SCRIPT = ("FunctionCall", "ParseHTML", "EventDispatch", "TimerFire")  # self times
CHANGES = """async ({names, reps}) => {
  const PASS = 300; // about what a throttled TV's pass applies at 200 events/s
  const LOOK = [["available", "●", "Available"], ["on_call", "☎", "On call"],
                ["wrap_up", "✎", "Wrap-up"], ["paused", "‖", "Paused"]];
  const frame = () => new Promise((done) => requestAnimationFrame(() => done()));
  const clock = document.getElementById("clock");
  const tiles = [...document.querySelectorAll("#agents .agent")];
  window.__tile = tiles[0];
  let moves = 0; // tiles placed anew (their transform written)
  new MutationObserver((records) => { moves += records.length; }).observe(
    document.getElementById("agents"), { subtree: true, attributeFilter: ["style"] });
  const moved = {};
  for (let i = 0; i < reps; i += 1) {
    for (const [j, v] of ["base", ...names].entries()) {
      console.timeStamp(`switch ${v}`); // the whole page's style again: not a change's
      for (const n of names) document.documentElement.classList.toggle(n, n === v);
      await frame(); await frame(); await frame();
      for (let k = 0; k < 4; k += 1) {
        console.timeStamp(`clock ${v}`); clock.textContent = `12:00:0${k}${i}`; await frame();
        const tile = tiles[(i * 37 + k * 101 + j * 211) % tiles.length]; // each its own
        console.timeStamp(`level ${v}`);
        tile.dataset.level = tile.dataset.level === "warn" ? "" : "warn";
        await frame();
        const out = tile.querySelector(".timer");
        console.timeStamp(`text ${v}`);
        out.textContent = out.textContent === "9m" ? "<1m" : "9m";
        await frame();
        const icon = tile.querySelector(".state > span");
        console.timeStamp(`state ${v}`);
        tile.dataset.state = tile.dataset.state === "paused" ? "available" : "paused";
        icon.textContent = icon.textContent === "P" ? "A" : "P";
        await frame();
      }
      // A pass: PASS tiles pushed in new states, as the server renders them, applied by
      // the page's own scripts; the window holds the placing that follows.
      const html = [];
      for (let t = 0; t < PASS; t += 1) {
        const tile = tiles[(i * PASS + j * 97 + t) % tiles.length].cloneNode(true);
        tile.removeAttribute("style");
        tile.removeAttribute("data-level");
        tile.querySelector(".timer").textContent = "";
        const was = LOOK.findIndex((look) => look[0] === tile.dataset.state); // a new state
        const [state, icon, label] = LOOK[(was + 1 + (t % 3)) % LOOK.length];
        tile.dataset.state = state;
        tile.dataset.seq = String(Number(tile.dataset.seq) + 1000);
        tile.dataset.since = new Date().toISOString();
        const shown = tile.querySelector(".state");
        shown.firstElementChild.textContent = icon;
        shown.childNodes[1].data = ` ${label} `;
        html.push(tile.outerHTML);
      }
      console.timeStamp(`pass ${v}`);
      await new Promise((done) => setTimeout(done, 0)); // the pass in a task of its own
      moves = 0;
      document.dispatchEvent(new CustomEvent("live:frame", { detail: { html: html.join("") } }));
      await new Promise((done) => setTimeout(done, 2200)); // a placing at least (each 1 s)
      (moved[v] ||= []).push(moves);
    }
  }
  return moved;
}"""


def frames(trace: Path) -> dict[str, list[dict]]:
    """Each change's rendering steps, in ms of CPU, by its mark ("clock base", ...)."""
    raw = json.loads(trace.read_text())
    raw = raw["traceEvents"] if isinstance(raw, dict) else raw
    marks = sorted(
        (e["ts"], e["args"]["data"]["message"])
        for e in raw
        if e.get("name") == "TimeStamp" and "message" in e.get("args", {}).get("data", {})
    )
    events = main_thread_events(trace)
    got = defaultdict(list)
    for j, (ts, mark) in enumerate(marks):
        end = marks[j + 1][0] if j + 1 < len(marks) else float("inf")
        own, _ = self_times([e for e in events if ts <= e["ts"] < end], "tdur")
        got[mark].append({n: own[n] / 1e3 for n in STEPS + SCRIPT})
    return got


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("variants", nargs="*", help='name=css, the css\'s rules under ".name"')
    p.add_argument("--reps", type=int, default=12)
    p.add_argument("--profile", type=int, default=0, help="the script's N costliest functions")
    a = p.parse_args()
    variants = dict(v.split("=", 1) for v in a.variants)
    with tempfile.TemporaryDirectory(prefix="tv-frames-") as tmp:
        setup = Setup("dashboard", Scenario("tv_frames", 1000, 200, 1, 5), Path(tmp))
        chromium = browser.Browser()
        try:
            token = setup.server.manage("shell", "-c", KIOSK).split("kiosk ", 1)[1].split()[0]
            url = setup.server.url
            cookies = [{"name": k, "value": v, "url": url} for k, v in setup.cookies.items()]
            page = browser.Page("tv", f"/wallboard/{token}/", 3840, 2160)
            context, tab, cdp = chromium.open(url, page, cookies)
            cdp.send("Page.setBypassCSP", {"enabled": True})  # for the variants' <style>
            tab.reload(timeout=120_000)
            tab.wait_for_selector("#agents .agent >> nth=999", state="attached")
            if variants:
                tab.add_style_tag(content="\n".join(variants.values()))
            tab.wait_for_timeout(2000)
            trace = Path(tmp) / "trace.json"
            chromium.chromium.start_tracing(page=tab, path=str(trace), categories=CATEGORIES)
            if a.profile:
                cdp.send("Profiler.enable")
                cdp.send("Profiler.start")
            moved = tab.evaluate(CHANGES, {"names": list(variants), "reps": a.reps})
            profile = cdp.send("Profiler.stop")["profile"] if a.profile else None
            chromium.chromium.stop_tracing()
            errors = tab.console_errors[:5]
            # a whole view from the server (a resync) replaced the tiles changed here
            replaced = tab.evaluate("!document.getElementById('agents').contains(window.__tile)")
            context.close()
        finally:
            chromium.close()
            setup.stop()
        got = frames(trace)
    for mark in sorted(got):
        rows = got[mark]
        steps = " ".join(f"{n} {median(r[n] for r in rows):5.2f}" for n in STEPS + SCRIPT)
        total = median(sum(r.values()) for r in rows)
        print(f"{mark:16} x{len(rows):<3} {steps}  all {total:5.2f} ms of CPU")
    if errors or replaced:
        print(f"not comparable: console errors {errors}, grid replaced {replaced}")
    for name, counts in moved.items():
        print(f"pass {name}: tiles moved {median(counts)} (median of {counts})")
    for name, us in script_times(profile).most_common(a.profile) if profile else ():
        print(f"  {us / 1e6:7.2f} s  {name}")


if __name__ == "__main__":
    main()
