"""The garbage collector while the day's history is read.

A full pass of the collector walks every object the process keeps that is not frozen, in
one piece, on the thread that happens to allocate: the event loop, which carries the live
feed. A fill allocates a lot and keeps some of it (today's calls until they are written),
and each full pass set off meanwhile walked the live state and the fill's rows alike: the
fill's longest stalls of the loop (docs/performance.md, the live feed during the fill).

So, while a fill runs, full passes wait (the younger generations' passes, short, go on),
and what the process holds when its first fill starts (the live state of the first
snapshot, its caches) is frozen out of the collector's sight for good, as the server
freezes what it loaded at its start. What is frozen is still freed when no longer
referred to; only a cycle among frozen objects stays, so the freeze is once a process.
"""

import gc
from contextlib import contextmanager

FULL_PASS_AFTER = 1000  # younger passes between two full ones while a fill runs (else 10)

_held = {"fills": 0, "threshold": None, "frozen": False}  # this process's


@contextmanager
def full_passes_held():
    """Full collections held back for as long as the block runs; restored after."""
    if not _held["frozen"]:
        gc.freeze()
        _held["frozen"] = True
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
