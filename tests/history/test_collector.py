"""The collector's full passes (each a stall of the event loop that carries the live feed)
walk only what is young: what lives is frozen out of their sight, and thawed now and then
so that the cycles that died among it are freed. While the history is read they wait; the
younger ones go on, and all is as before after the fill, whether it ended or failed."""

import asyncio
import gc
import weakref

import pytest

from dashboard.main.collector import full_passes_held, keep_frozen
from dashboard.testing.processes import await_until

ROWS = 300_000  # containers kept, as a fill keeps today's calls until they are written


def full_passes_while(step) -> int:
    passes = []

    def note(phase, info):
        if phase == "start" and info["generation"] == 2:
            passes.append(info)

    gc.callbacks.append(note)
    try:
        step()
    finally:
        gc.callbacks.remove(note)
    return len(passes)


def keep_rows():
    # More than a quarter of what the collector watches, so that a full pass is due.
    rows = max(ROWS, len(gc.get_objects()) // 2)
    kept = [[] for _ in range(rows)]
    assert len(kept) == rows


def test_full_passes_wait_while_a_fill_runs_and_come_back_after():
    before = gc.get_threshold()
    assert full_passes_while(keep_rows) > 0  # what the same rows set off without a fill

    def fill():
        with full_passes_held():
            keep_rows()

    assert full_passes_while(fill) == 0
    assert gc.get_threshold() == before


def test_a_failed_fill_gives_the_collector_back():
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), full_passes_held():
        raise RuntimeError("the service went away")
    assert gc.get_threshold() == before


class Node:
    """An object in a cycle with itself: only the collector frees it."""

    def __init__(self):
        self.me = self


async def test_what_lives_is_frozen_out_of_full_passes_and_its_dead_cycles_freed_at_a_thaw():
    stop = asyncio.Event()
    node = Node()
    alive = weakref.ref(node)
    frozen = gc.get_freeze_count()
    task = asyncio.ensure_future(keep_frozen(stop, every_s=0.05, thaw_s=3))
    try:
        await await_until(lambda: gc.get_freeze_count() > frozen, 10, "a freeze")
        del node
        gc.collect()
        assert alive() is not None  # frozen: a full pass no longer walks it
        await await_until(lambda: alive() is None, 10, "the thaw's full pass")
        assert gc.get_freeze_count() > 0  # frozen again after it
    finally:
        stop.set()
        await task
    assert gc.get_freeze_count() == 0  # stopped, it leaves nothing out of the passes' sight
