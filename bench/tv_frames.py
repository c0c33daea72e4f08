"""What one frame of the 4K wallboard costs the renderer's main thread, with and without
CSS variants, interleaved in one page: a load-independent A/B for the wallboard's look.

    python -m bench.tv_frames "flat=.flat .agent { contain: strict; }"

Each variant is a name and rules under `.name` (a class set on <html> while it is
measured). The page (1,000 agents, 3840x2160, no throttling, no load) then makes three
kinds of change a frame apart, a dozen times per variant in turn: the clock's text, a
tile's level (paint only) and a tile's timer text (layout too). Printed per kind and
variant: the medians of the thread's own CPU (trace `tdur`) in each rendering step of the
frame that drew it. Not a figure for the targets: a tool to compare CSS on a shared machine.
"""

import argparse
import json
import tempfile
from collections import defaultdict
from pathlib import Path
from statistics import median

from bench import browser
from bench.paint_trace import CATEGORIES, main_thread_events
from bench.run import KIOSK, Scenario, Setup

STEPS = ("Layerize", "Paint", "PrePaint", "Layout", "UpdateLayoutTree", "Commit")
CHANGES = """async ({names, reps}) => {
  const frame = () => new Promise((done) => requestAnimationFrame(() => done()));
  const clock = document.getElementById("clock");
  const tiles = [...document.querySelectorAll("#agents .agent")];
  for (let i = 0; i < reps; i += 1) {
    for (const [j, v] of ["base", ...names].entries()) {
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
      }
    }
  }
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
    events = [e for e in main_thread_events(trace) if e["name"] in STEPS]
    got = defaultdict(list)
    for j, (ts, mark) in enumerate(marks):
        end = marks[j + 1][0] if j + 1 < len(marks) else float("inf")
        inside = [e for e in events if ts <= e["ts"] < end]
        got[mark].append(
            {n: sum(e.get("tdur", 0) for e in inside if e["name"] == n) / 1e3 for n in STEPS}
        )
    return got


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("variants", nargs="+", help='name=css, the css\'s rules under ".name"')
    p.add_argument("--reps", type=int, default=12)
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
            tab.add_style_tag(content="\n".join(variants.values()))
            tab.wait_for_timeout(2000)
            trace = Path(tmp) / "trace.json"
            chromium.chromium.start_tracing(page=tab, path=str(trace), categories=CATEGORIES)
            tab.evaluate(CHANGES, {"names": list(variants), "reps": a.reps})
            chromium.chromium.stop_tracing()
            context.close()
        finally:
            chromium.close()
            setup.stop()
        got = frames(trace)
    for mark in sorted(got):
        rows = got[mark]
        steps = " ".join(f"{n} {median(r[n] for r in rows):5.2f}" for n in STEPS)
        total = median(sum(r.values()) for r in rows)
        print(f"{mark:16} x{len(rows):<3} {steps}  all {total:5.2f} ms of CPU")


if __name__ == "__main__":
    main()
