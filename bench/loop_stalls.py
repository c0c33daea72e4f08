"""The event loop's long callbacks in a process the bench starts: what holds an event back.

An event from the service waits in the socket while any other callback runs on the loop
that reads it; the bridge's lag (emitted to applied) is made of those waits. `install()`
times every callback of the process's loops in CPU (`time.thread_time`: the loop's thread
alone, however loaded the machine) and keeps, by task (the coroutine a task's step runs) or
callback, how many ran, their total and their longest, and how many took 5, 20 and 50 ms
or more, in a JSON file that `read()` takes back: `<LOOP_STALLS_DIR>/<pid>.json`. It is
installed by `bench/hook/sitecustomize.py` in every process started with that folder in
its environment and `bench/hook` on its PYTHONPATH (bench/bridge_cost.py does both);
nothing else loads it.
"""

import asyncio
import atexit
import json
import os
import time
from collections import defaultdict
from pathlib import Path

BOUNDS_MS = (5, 20, 50)
WRITE_EVERY_S = 1.0


class Stalls:
    def __init__(self, path: Path):
        self.path = path
        self.by_name: dict[str, list] = defaultdict(lambda: [0, 0.0, 0.0, *[0] * len(BOUNDS_MS)])
        self.written = time.monotonic()

    def note(self, name: str, cpu_s: float):
        row = self.by_name[name]
        row[0] += 1
        row[1] += cpu_s
        row[2] = max(row[2], cpu_s)
        for i, bound in enumerate(BOUNDS_MS):
            if cpu_s * 1000 >= bound:
                row[3 + i] += 1
        if time.monotonic() - self.written >= WRITE_EVERY_S:
            self.write()

    def write(self):
        self.written = time.monotonic()
        rows = {
            name: {"count": r[0], "cpu_s": r[1], "max_ms": r[2] * 1000}
            | {f"over_{b}ms": r[3 + i] for i, b in enumerate(BOUNDS_MS)}
            for name, r in list(self.by_name.items())
        }
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(rows))
        tmp.replace(self.path)


def name_of(handle: asyncio.Handle) -> str:
    callback = handle._callback
    task = getattr(callback, "__self__", None)
    if isinstance(task, asyncio.Task):
        coro = task.get_coro()
        return f"task {getattr(coro, '__qualname__', repr(coro))}"
    return f"callback {getattr(callback, '__qualname__', type(callback).__name__)}"


def install(folder: str):
    stalls = Stalls(Path(folder) / f"{os.getpid()}.json")
    run = asyncio.events.Handle._run

    def timed(handle):
        started = time.thread_time()
        try:
            return run(handle)
        finally:
            stalls.note(name_of(handle), time.thread_time() - started)

    asyncio.events.Handle._run = timed
    atexit.register(stalls.write)


def read(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def between(before: dict, after: dict, top: int = 12) -> dict:
    """What ran on the loop between two reads: every callback's count, CPU and counts over
    each bound, and the tasks and callbacks that ran longest."""
    rows = {}
    for name, row in after.items():
        was = before.get(name, {})
        diff = {k: v - was.get(k, 0) for k, v in row.items() if k != "max_ms"}
        if diff["count"]:
            rows[name] = diff | {"max_ms": round(row["max_ms"], 1)}  # since the start
    total = {k: sum(r[k] for r in rows.values()) for k in ("count", "cpu_s")}
    total |= {f"over_{b}ms": sum(r[f"over_{b}ms"] for r in rows.values()) for b in BOUNDS_MS}
    longest = sorted(rows.items(), key=lambda kv: -kv[1]["cpu_s"])[:top]
    return {
        "all": {k: round(v, 3) for k, v in total.items()},
        "by_cpu": {
            name: {k: round(v, 3) if isinstance(v, float) else v for k, v in r.items()}
            for name, r in longest
        },
    }
