"""The event loop's long callbacks in a process the bench starts: what holds an event back.

An event from the service waits in the socket while any other callback runs on the loop
that reads it; the bridge's lag (emitted to applied) is made of those waits. `install()`
times every callback of the process's loops in CPU (`time.thread_time`: the loop's thread
alone, however loaded the machine) and keeps, by task (the coroutine a task's step runs) or
callback, how many ran, their total and their longest, and how many took 5, 20 and 50 ms
or more, in a JSON file that `read()` takes back: `<LOOP_STALLS_DIR>/<pid>.json`. The
garbage collector's passes are kept beside them by generation (`gc generation 2`), on
whichever thread they ran: one holds the GIL, so the loop waits for it, and it runs inside
some callback, whose time includes it. It is installed by `bench/hook/sitecustomize.py` in
every process started with that folder in its environment and `bench/hook` on its
PYTHONPATH (bench/bridge_cost.py does both, and bench/run.py's `--stalls` for the
dashboard's processes); nothing else loads it.
"""

import asyncio
import atexit
import gc
import json
import os
import threading
import time
from collections import defaultdict
from pathlib import Path

BOUNDS_MS = (5, 20, 50)
WRITE_EVERY_S = 1.0
GC = "gc generation "  # a collector's pass, not a callback: within one, not beside it


class Stalls:
    def __init__(self, path: Path):
        self.path = path
        self.by_name: dict[str, list] = defaultdict(lambda: [0, 0.0, 0.0, *[0] * len(BOUNDS_MS)])
        self.written = time.monotonic()
        self.writing = threading.Lock()  # a collector's pass may be noted on another thread

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
        with self.writing:
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(rows))
            tmp.replace(self.path)


def name_of(handle: asyncio.Handle) -> str:
    """Read before the callback runs: a handle cancelled meanwhile forgets its callback."""
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
        name, started = name_of(handle), time.thread_time()
        try:
            return run(handle)
        finally:
            stalls.note(name, time.thread_time() - started)

    passes: dict[int, float] = {}  # thread -> when its collector's pass began

    def collected(phase: str, info: dict):
        if phase == "start":
            passes[threading.get_ident()] = time.thread_time()
        elif (began := passes.pop(threading.get_ident(), None)) is not None:
            stalls.note(f"{GC}{info['generation']}", time.thread_time() - began)

    asyncio.events.Handle._run = timed
    gc.callbacks.append(collected)
    atexit.register(stalls.write)


def read(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def between(before: dict, after: dict, top: int = 12) -> dict:
    """What ran on the loop between two reads: every callback's count, CPU and counts over
    each bound (`all`: the callbacks', without the collector's passes within them), the
    tasks and callbacks that took the most CPU, those that most often ran 5 ms or more at
    once (what an event waits behind), and the collector's passes."""
    rows = {}
    for name, row in after.items():
        was = before.get(name, {})
        diff = {k: v - was.get(k, 0) for k, v in row.items() if k != "max_ms"}
        if diff["count"]:
            rows[name] = diff | {"max_ms": round(row["max_ms"], 1)}  # since the start
    callbacks = {name: r for name, r in rows.items() if not name.startswith(GC)}
    total = {k: sum(r[k] for r in callbacks.values()) for k in ("count", "cpu_s")}
    total |= {f"over_{b}ms": sum(r[f"over_{b}ms"] for r in callbacks.values()) for b in BOUNDS_MS}
    stalling = [kv for kv in callbacks.items() if kv[1][f"over_{BOUNDS_MS[0]}ms"]]
    return {
        "all": {k: round(v, 3) for k, v in total.items()},
        "by_cpu": rounded(sorted(callbacks.items(), key=lambda kv: -kv[1]["cpu_s"])[:top]),
        "by_stalls": rounded(
            sorted(stalling, key=lambda kv: [-kv[1][f"over_{b}ms"] for b in BOUNDS_MS[::-1]])[:top]
        ),
        "gc": rounded(sorted(kv for kv in rows.items() if kv[0].startswith(GC))),
    }


def rounded(pairs) -> dict:
    return {
        name: {k: round(v, 3) if isinstance(v, float) else v for k, v in r.items()}
        for name, r in pairs
    }
