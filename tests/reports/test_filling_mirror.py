"""The fill's progress goes to the pages (the cache the web processes read, and a push of
what shows it) only when what they show changes, in one process: a dashboard starting
without a fill pushes nothing; each move is written and pushed, today's to every page that
shows it, the past weeks' alone to the charts; a progress that does not move is written
again before it expires; a progress left in the cache by a process stopped during a fill
is cleared and pushed."""

import pytest
from django.core.cache import cache

from dashboard.live.subscribers import Board
from dashboard.reports.filling import FillingMirror
from dashboard.shared.cache_keys import FILLING_KEY
from dashboard.shared.filling import filling_past_pct, filling_pct, store_progress
from dashboard.testing.processes import await_until, each_moment


@pytest.fixture
def mirror(settings):
    settings.FILLING_EXPIRY_S = 1.0
    cache.delete(FILLING_KEY)
    pushed = []

    async def moved():
        pushed.append(("today", filling_pct(), filling_past_pct()))

    async def past_moved():
        pushed.append(("past", filling_pct(), filling_past_pct()))

    yield FillingMirror(on_moved=moved, gap_s=0, on_past_moved=past_moved), pushed
    cache.delete(FILLING_KEY)


async def hear(mirror: FillingMirror, pushed: list, today, past):
    """The feed's figures as the mirror hears them, then its push of them."""
    mirror.parts(Board([], {"filling_pct": today, "filling_past_pct": past}, {}))
    await await_until(lambda: pushed and pushed[-1][1:] == (today, past), 10, pushed)


async def test_a_start_without_a_fill_pushes_nothing_and_a_fill_is_followed(mirror, settings):
    mirror, pushed = mirror
    mirror.parts(Board([], {"filling_pct": None, "filling_past_pct": None}, {}))
    await mirror.task
    assert pushed == [] and filling_pct() is None
    for today, past in ((0, None), (40, None), (None, 0), (None, 50)):
        await hear(mirror, pushed, today, past)
    assert [p[0] for p in pushed] == ["today", "today", "today", "past"], pushed
    async for _ in each_moment(2 * settings.FILLING_EXPIRY_S, 0.05):  # nothing moving
        assert filling_past_pct() == 50
    await hear(mirror, pushed, None, None)
    assert len(pushed) == 5 and filling_past_pct() is None


async def test_a_progress_left_by_a_stopped_process_is_cleared_and_pushed(mirror):
    mirror, pushed = mirror
    store_progress(35, None)
    await hear(mirror, pushed, None, None)
    assert pushed == [("today", None, None)]
