"""The whole live view is read and composed once for the sockets of an audience that ask for
it together, and again only when the cache holds another view: a newer push's, or a bridge
that started again and numbers its pushes from 1 once more."""

import asyncio

import pytest
from django.core.cache import cache

from dashboard.live import snapshot
from dashboard.live.audiences import LIVE_VIEW, Shows
from dashboard.live.whole import Views
from dashboard.shared.cache_keys import TEAMS_KEY

pytestmark = pytest.mark.django_db(transaction=True)

TEAM = Shows(LIVE_VIEW.parts, ("Team 1",))


def push(version: int, tiles: dict[str, str], calls: str):
    """The cache as a push of this version leaves it (publish.py)."""
    parts = {"calls": calls, "queues": "", "kpis": "", "changed": "", "status": "ok"}
    cache.set_many(snapshot.entries(version, parts, tiles, tiles.keys()), timeout=None)


@pytest.fixture(autouse=True)
def empty_cache():
    cache.clear()
    yield
    cache.clear()


async def test_sockets_asking_together_share_one_view_per_audience():
    push(7, {"Team 1": '<a id="agent-1">', "Team 2": '<a id="agent-2">'}, "<li>c</li>")
    views = Views()
    also = (TEAMS_KEY,)
    got = await asyncio.gather(*(views.read(a, also) for a in [LIVE_VIEW] * 5 + [TEAM] * 3))
    floors, teams = {id(w) for w, _ in got[:5]}, {id(w) for w, _ in got[5:]}
    assert len(floors) == 1 and len(teams) == 1  # one composition each
    floor, team = got[0][0], got[5][0]
    assert floor.head[0] == team.head[0] == 7
    assert 'id="agent-1"' in floor.text and 'id="agent-2"' in floor.text
    assert 'id="agent-1"' in team.text and 'id="agent-2"' not in team.text
    assert floor.frames.payload == floor.text.encode()
    # Asked again at the same version: the same view, not composed again
    again, _ = await views.read(LIVE_VIEW, also)
    assert again is floor


async def test_another_view_in_the_cache_is_composed_afresh():
    views = Views()
    assert (await views.read(LIVE_VIEW, ()))[0] is None  # before the first push
    push(3, {"Team 1": '<a id="agent-1">'}, "<li>first</li>")
    first, _ = await views.read(LIVE_VIEW, ())
    push(4, {"Team 1": '<a id="agent-9">'}, "<li>first</li>")
    newer, _ = await views.read(LIVE_VIEW, ())
    assert newer.head[0] == 4 and 'id="agent-9"' in newer.text
    # A bridge that started again reaches version 4 with another floor
    push(4, {"Team 1": '<a id="agent-5">'}, "<li>restarted</li>")
    restarted, _ = await views.read(LIVE_VIEW, ())
    assert restarted is not newer
    assert "restarted" in restarted.text and 'id="agent-5"' in restarted.text
    assert first.text != restarted.text
