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
from collections import Counter
from pathlib import Path

from bench import browser
from bench.run import KIOSK, Scenario, Setup

CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8.execute"]
TASKS = ("RunTask", "ThreadControllerImpl::RunTask")


def main_thread_events(trace: Path) -> list[dict]:
    """The complete events of the measured page's main thread (the last renderer's)."""
    events = json.loads(trace.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    names = [e for e in events if e.get("name") == "thread_name"]
    main = [(e["pid"], e["tid"]) for e in names if e["args"]["name"] == "CrRendererMain"][-1]
    mine = [e for e in events if (e.get("pid"), e.get("tid")) == main and e.get("ph") == "X"]
    return sorted((e for e in mine if "dur" in e), key=lambda e: (e["ts"], -e["dur"]))


def self_times(events: list[dict]) -> tuple[Counter, Counter]:
    """Each event name's self time (its duration less its children's) and count, in µs."""
    own, count, stack = Counter(), Counter(), []
    for e in events:
        while stack and stack[-1][0]["ts"] + stack[-1][0]["dur"] <= e["ts"]:
            stack.pop()
        if stack:
            own[stack[-1][0]["name"]] -= e["dur"]
        stack.append((e, None))
        own[e["name"]] += e["dur"]
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


def report(got: dict, events: list[dict], profile: dict, top: int):
    paints = got["paints"]
    seconds = got["seconds"] or 1
    print(
        f"painted {len(paints)}, p50 {browser.quantile(paints, 0.5)} ms,"
        f" p99 {browser.quantile(paints, 0.99)} ms, {got['frames'] / seconds:.1f} fps"
    )
    busy = sum(e["dur"] for e in events if e["name"] in TASKS) / 1e6
    print(f"main thread: {busy:.2f} s of tasks in {seconds:.1f} s")
    own, count = self_times(events)
    for name, us in own.most_common(top):
        print(f"  {us / 1e6:7.2f} s  {name} (x{count[name]})")
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
            page = browser.Page("tv", f"/wallboard/{token}/", 3840, 2160, throttle=a.throttle)
            context, tab, cdp = chromium.open(url, page, cookies)
            tab.evaluate("window.__probe.start()")
            chromium.chromium.start_tracing(page=tab, path=str(trace), categories=CATEGORIES)
            cdp.send("Profiler.enable")
            cdp.send("Profiler.start")
            setup.window(load.events_per_s, load.seconds)
            profile = cdp.send("Profiler.stop")["profile"]
            chromium.chromium.stop_tracing()
            got = tab.evaluate("window.__probe.stop()")
            context.close()
        finally:
            chromium.close()
            setup.stop()
        report(got, main_thread_events(trace), profile, a.top)


if __name__ == "__main__":
    main()
