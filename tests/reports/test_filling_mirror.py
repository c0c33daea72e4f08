"""Today's fill progress goes to the pages (the cache the web processes read, and a push of
what shows it) only when what they show changes: a dashboard starting without a fill to
report pushes nothing; a fill's start, its moves and its end are passed on; a progress
left in the cache by a process stopped during a fill is cleared and pushed."""

import pytest
from django.core.cache import cache

from dashboard.live.subscribers import Board
from dashboard.reports.filling import FillingMirror
from dashboard.shared.cache_keys import FILLING_KEY
from dashboard.shared.filling import filling_pct


@pytest.fixture
def mirror():
    cache.delete(FILLING_KEY)
    pushed = []

    async def on_moved():
        pushed.append(filling_pct())

    yield FillingMirror(on_moved=on_moved, gap_s=0), pushed
    cache.delete(FILLING_KEY)


async def hear(mirror: FillingMirror, pct):
    """The feed's figures with `pct`, as the mirror hears them, and its pass to the pages."""
    mirror.parts(Board(campaigns=[], figures={"filling_pct": pct}, names={}))
    if mirror.task:
        await mirror.task


async def test_a_start_without_a_fill_pushes_nothing_and_a_fill_is_followed(mirror):
    mirror, pushed = mirror
    await hear(mirror, None)
    assert pushed == [] and filling_pct() is None
    for pct in (0, 40, 40, None):
        await hear(mirror, pct)
    assert pushed == [0, 40, None] and filling_pct() is None


async def test_a_progress_left_by_a_stopped_process_is_cleared_and_pushed(mirror):
    mirror, pushed = mirror
    cache.set(FILLING_KEY, 35, None)
    await hear(mirror, None)
    assert pushed == [None] and filling_pct() is None
