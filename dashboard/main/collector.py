"""The garbage collector in the process that carries the live feed.

A full pass of the collector walks every object the process keeps that is not frozen, in
one piece, on whichever thread allocates: at 10,000 agents with 1,000 browsers' sockets,
80 ms a pass, three passes in 20 s of the floor10k bench (bench/loop_stalls.py), each
holding back every event and push meanwhile: most of what the bridge's lag had at its
p99. So what has lived `FREEZE_EVERY_S` is frozen out of the full passes' sight
(`keep_frozen`), and the passes walk only what is younger. Frozen objects are still freed
when no longer referred to; only a cycle among them that dies (a closed socket's) waits,
for `THAW_EVERY_S`: then everything is thawed, collected in one full pass, and frozen
again.

While the day's history is read, the fill allocates a lot and keeps some of it (today's
calls until they are written), and full passes set off meanwhile were the fill's longest
stalls of the loop (docs/performance.md, the live feed during the fill): while a fill runs
they wait (`full_passes_held`; the younger generations' passes, short, go on).
"""

import asyncio
import gc
import time
from contextlib import contextmanager

from dashboard.shared.aio import pause

FULL_PASS_AFTER = 1000  # younger passes between two full ones while a fill runs (else 10)
FREEZE_EVERY_S = 10.0
THAW_EVERY_S = 600.0

_held = {"fills": 0, "threshold": None}  # this process's


@contextmanager
def full_passes_held():
    """Full collections held back for as long as the block runs; restored after."""
    if _held["fills"] == 0:
        _held["threshold"] = young, middle, old = gc.get_threshold()
        gc.set_threshold(young, middle, max(old, FULL_PASS_AFTER))
    _held["fills"] += 1
    try:
        yield
    finally:
        _held["fills"] -= 1
        if _held["fills"] == 0:
            gc.set_threshold(*_held["threshold"])


async def keep_frozen(stop: asyncio.Event, every_s=FREEZE_EVERY_S, thaw_s=THAW_EVERY_S):
    """Freeze what is alive every `every_s`; every `thaw_s`, one full pass over all of it
    first (the cycles that died among the frozen objects freed). Stopped, it thaws all."""
    thawed = time.monotonic()
    try:
        while not stop.is_set():
            await pause(stop, every_s)
            if time.monotonic() - thawed >= thaw_s:
                gc.unfreeze()
                gc.collect()
                thawed = time.monotonic()
            gc.freeze()
    finally:
        gc.unfreeze()
