"""My floor: a person's teams are the live view's default scope (tiles, KPI strip), the
whole floor one click away; the feed renders one KPI strip per team set in use, never
per browser, and each socket is sent its own set's strip and its teams' tiles only."""

import re
from datetime import UTC, datetime

import pytest
from asgiref.sync import sync_to_async
from django.core.cache import cache

from dashboard.accounts import scope
from dashboard.accounts.models import Preferences
from dashboard.live.audiences import LIVE_VIEW, Shows
from dashboard.live.publish import TEAM_SETS_EVERY_S
from dashboard.live.state import Changes, LiveState
from dashboard.live.view import KPI_EVERY_S, STRIPS_SHARE, StripPace
from dashboard.shared.cache_keys import SNAPSHOT_KEY, TEAM_SETS_KEY, TEAMS_KEY
from dashboard.testing.feeds import Events, running_feed
from dashboard.testing.processes import let_pass, let_pass_async
from dashboard.testing.sockets import socket_for
from dashboard.upstream import contract as c

T0 = datetime.now(UTC)
SUPPORT = ("Support",)


def agent(agent_id, team, status="available"):
    return c.Agent(agent_id, f"Agent {agent_id}", team, status, T0, None)


FLOOR = [
    agent("n1", "Sales North"),
    agent("n2", "Sales North", "paused"),
    agent("s1", "Support"),
    agent("w1", "Sales West", "on_call"),
]


def kpi(html, kind):
    """The value of the KPI tile `kind` (data-kind) in a strip."""
    found = re.search(rf'data-kind="{kind}">.*?<div class="value">(\d+)</div>', html)
    return int(found.group(1))


def tiles(html):
    """The agent tiles in a frame, by agent id."""
    return re.findall(r'<div id="agent-([^"]+)" class="agent"', html)


async def frames_until(ws, agent_id) -> str:
    """The frames a socket is sent up to the first with `agent_id`'s tile, joined."""
    got = []
    while agent_id not in tiles(got[-1] if got else ""):
        got.append(await ws.receive_from(timeout=2))
    return "".join(got)


def strip(html):
    """The KPI strip in a frame, and whose it is (its data-teams)."""
    found = re.search(r'<div id="kpis"[^>]*data-teams="([^"]*)"', html)
    return found and found.group(1)


# ---- The scope an address asks for ---------------------------------------------------------
def test_the_scope_is_the_persons_teams_unless_the_address_says_otherwise():
    mine = ("Sales North", "Support")
    assert scope.scope_of({}, mine).teams == mine
    assert scope.scope_of({}, mine).label == "My floor: 2 teams"
    assert scope.scope_of({"teams": "all"}, mine).teams == ()
    assert scope.scope_of({"teams": "all"}, mine).label == "Whole floor"
    assert scope.scope_of({"teams": " Support,Support , "}, mine).label == "Teams: Support"
    assert scope.scope_of({}, ()).teams == ()  # no teams chosen: the whole floor
    # An old single-team link: within my floor it keeps it, else the whole floor (the team
    # filter narrows the tiles).
    assert scope.scope_of({"team": "Support"}, mine).teams == mine
    assert scope.scope_of({"team": "Sales West"}, mine).teams == ()


def test_only_sets_with_a_known_team_are_registered_and_they_are_capped(db):
    cache.delete(TEAM_SETS_KEY)
    assert not scope.register(("Nobody",), ["Support"])
    assert scope.register(SUPPORT, ["Support"])
    assert not scope.register(SUPPORT, ["Support"])  # known, and fresh
    for n in range(scope.MAX_SETS + 5):
        scope.register(("Support", f"T{n}"), ["Support"])
    sets = scope.in_use(cache.get(TEAM_SETS_KEY))
    assert len(sets) == scope.MAX_SETS and ("Support", f"T{scope.MAX_SETS + 4}") in sets


# ---- The feed: one strip per team set in use ------------------------------------------------
def test_the_feed_renders_each_team_sets_strip_once_per_push(db):
    from dashboard.main.bridge_task import live_feed

    feed = live_feed(LiveState(UTC), tick=0.1, heartbeat=60)
    feed.snapshot(FLOOR, [])
    feed.view.team_sets = {("Sales North", "Support"), SUPPORT}
    parts = feed.view.render_changes(Changes(full=True))
    floor, mine = parts["kpis"], parts["kpis@Sales North,Support"]
    assert strip(floor) == "" and 'aria-label="Key figures: whole floor"' in floor
    assert strip(mine) == "Sales North, Support"
    assert kpi(floor, "available") == 2 and kpi(mine, "available") == 2
    assert kpi(floor, "paused") == 1 and kpi(mine, "paused") == 1
    assert kpi(floor, "on_call") == 1 and kpi(mine, "on_call") == 0
    assert "of 4 agents" in floor and "of 3 agents" in mine
    assert "floor, today" in mine and "floor, today" not in floor  # the day's are the floor's
    assert kpi(parts["kpis@Support"], "available") == 1
    # An audience is sent its own set's strip, joined with the parts the whole floor shares.
    frame = Shows(LIVE_VIEW.parts, SUPPORT).compose(parts)
    assert strip(frame) == "Support" and tiles(frame) == ["s1"]
    assert strip(LIVE_VIEW.compose(parts)) == ""
    # A set no page shows any more is rendered no more.
    feed.view.team_sets = {SUPPORT}
    let_pass(KPI_EVERY_S, "the strips are rendered at most this often")
    events = Events()
    feed.event(events.agent(1, "s1", "paused", team="Support"))
    parts = feed.view.render_changes(Changes(agents={"s1"}, kpis=True))
    assert {k for k in parts if k.startswith("kpis")} == {"kpis", "kpis@Support"}
    assert kpi(parts["kpis@Support"], "paused") == 1
    assert "kpis@Sales North,Support" not in feed.view.full_parts()


def test_a_pushs_strips_are_of_its_moment_while_the_loop_runs_between_them(db, monkeypatch):
    from dashboard.live import view
    from dashboard.main.bridge_task import live_feed

    monkeypatch.setattr(view, "STRIPS_SLICE_S", 0.0)  # a turn of the loop after every strip
    feed = live_feed(LiveState(UTC), tick=0.1, heartbeat=60)
    feed.snapshot(FLOOR, [])
    feed.view.team_sets = {("Sales North", "Support"), SUPPORT}
    rendering = feed.view.rendering(feed.inbox.take())  # the whole view
    assert next(rendering) is None  # the whole floor's strip rendered, the loop runs
    feed.event(Events().agent(1, "s1", "paused", team="Support"))  # meanwhile
    *between, parts = rendering
    assert between == [None, None]  # a turn after each team set's strip
    support = parts["agents@Support"]
    assert tiles(support) == ["s1"] and 'data-state="available"' in support
    strips = [parts[p] for p in ("kpis", "kpis@Support", "kpis@Sales North,Support")]
    assert [kpi(html, "paused") for html in strips] == [1, 0, 1]  # n2 only
    assert kpi(parts["kpis@Support"], "available") == 1
    let_pass(KPI_EVERY_S, "the strips are rendered at most this often")
    parts = feed.view.render_changes(feed.inbox.take())  # the event is the next push's
    assert kpi(parts["kpis"], "paused") == 2 and kpi(parts["kpis@Support"], "paused") == 1


def test_the_team_sets_strips_take_at_most_their_share_of_the_feeds_time():
    pace = StripPace()
    assert pace.due(0.0)
    pace.rendered(10.0, 0.002)  # cheap (a small floor): with the floor's, every KPI_EVERY_S
    assert not pace.due(10.0 + KPI_EVERY_S / 2) and pace.due(10.0 + KPI_EVERY_S)
    pace.rendered(20.0, 0.2)  # 100 sets at 10,000 agents on a busy core
    assert not pace.due(20.0 + 0.2 / STRIPS_SHARE - 0.01) and pace.due(20.0 + 0.2 / STRIPS_SHARE)


# ---- The sockets -----------------------------------------------------------------------------
pytestmark_db = pytest.mark.django_db(transaction=True)


@pytestmark_db
async def test_a_socket_is_sent_the_strip_of_its_team_set_and_registers_it(bob):
    async with running_feed(FLOOR) as feed:
        assert await sync_to_async(cache.get)(TEAMS_KEY) == ["Sales North", "Sales West", "Support"]
        mine = await socket_for(bob, "/ws/live/?teams=Support")
        whole = await socket_for(bob, "/ws/live/")
        assert (await mine.connect())[0] and (await whole.connect())[0]
        first = await mine.receive_from(timeout=2)
        assert tiles(first) == ["s1"]  # its team's tiles only
        assert strip(first) is None  # its strip is not rendered yet: the socket asked for it
        assert strip(await whole.receive_from(timeout=2)) == ""
        sets = await sync_to_async(cache.get)(TEAM_SETS_KEY)
        assert scope.in_use(sets) == {SUPPORT}
        await let_pass_async(TEAM_SETS_EVERY_S, "the feed reads the sets in use this often")
        feed.event(Events().agent(2, "s1", "paused", team="Support"))
        got = await mine.receive_from(timeout=2)
        assert strip(got) == "Support" and kpi(got, "paused") == 1
        assert strip(await whole.receive_from(timeout=2)) == ""
        # A socket that comes later gets it in its snapshot.
        later = await socket_for(bob, "/ws/live/?teams=Support")
        assert (await later.connect())[0]
        assert strip(await later.receive_from(timeout=2)) == "Support"
        version, parts = await sync_to_async(cache.get)(SNAPSHOT_KEY)
        assert "kpis@Support" in parts
        for ws in (mine, whole, later):
            await ws.disconnect()


@pytestmark_db
async def test_a_team_socket_is_sent_its_teams_changes_only_and_none_is_lost(bob):
    async with running_feed(FLOOR) as feed:
        mine = await socket_for(bob, "/ws/live/?teams=Sales North,Support")
        whole = await socket_for(bob, "/ws/live/")
        assert (await mine.connect())[0] and (await whole.connect())[0]
        first = await mine.receive_from(timeout=2)
        assert first.startswith('<div id="agents" class="agents">')
        assert sorted(tiles(first)) == ["n1", "n2", "s1"]
        assert sorted(tiles(await whole.receive_from(timeout=2))) == ["n1", "n2", "s1", "w1"]
        events, teams = Events(), {a.agent_id: a.team for a in FLOOR}
        states = ["paused", "on_call", "wrap_up", "available"]
        for n in range(12):  # every agent changes three times, in pushes of one or several
            agent_id = FLOOR[n % 4].agent_id
            feed.event(events.agent(n, agent_id, states[n % 4], team=teams[agent_id]))
            if n % 3 == 0:
                await let_pass_async(feed.tick * 2, "the next changes in another push")
        last = {FLOOR[n % 4].agent_id: n + 1 for n in range(12)}  # each agent's last seq
        for ws, shown in ((mine, {"n1", "n2", "s1"}), (whole, set(teams))):
            seen: dict[str, int] = {}
            while any(seen.get(a, 0) < last[a] for a in shown):
                frame = await ws.receive_from(timeout=2)
                for agent_id, seq in re.findall(r'id="agent-([^"]+)"[^>]*data-seq="(\d+)"', frame):
                    seen[agent_id] = max(seen.get(agent_id, 0), int(seq))
            assert set(seen) == shown  # nothing of another team, nothing lost
        # An agent moved to another team goes once more to its old team's pages, whose
        # filter hides it, then no more.
        feed.event(events.agent(20, "s1", "paused", team="Sales West"))
        moved = await frames_until(mine, "s1")
        assert 'data-team="Sales West"' in moved
        feed.event(events.agent(21, "s1", "available", team="Sales West"))
        feed.event(events.agent(21, "n1", "paused", team="Sales North"))
        assert "s1" not in tiles(await frames_until(mine, "n1"))
        # A socket that comes later reads its teams' tiles from the cache, as they are now.
        later = await socket_for(bob, "/ws/live/?teams=Support")
        later_whole = await socket_for(bob, "/ws/live/")
        assert (await later.connect())[0] and (await later_whole.connect())[0]
        assert (await later.receive_from(timeout=2)).startswith(
            '<div id="agents" class="agents"></div>'  # s1 has left Support
        )
        view = await later_whole.receive_from(timeout=2)
        assert sorted(tiles(view)) == ["n1", "n2", "s1", "w1"]
        assert re.search(r'id="agent-s1"[^>]*data-team="Sales West"', view)
        for ws in (mine, whole, later, later_whole):
            await ws.disconnect()


# ---- The page ----------------------------------------------------------------------------------
def test_the_live_view_shows_my_floor_by_default_and_the_whole_floor_in_one_click(bob, client_for):
    cache.clear()  # no floor pushed yet: the socket's address has no version
    cache.set(TEAMS_KEY, ["Sales North", "Sales West", "Support"])
    Preferences.objects.create(user=bob, teams=["Sales North", "Support"])
    client = client_for(bob)
    page = client.get("/?state=paused").content.decode()
    assert '<strong id="scope-label">My floor: 2 teams</strong>' in page
    assert 'data-teams="Sales North,Support"' in page  # what static/js/live/ filters the tiles by
    assert 'ws-connect="/ws/live/?teams=Sales+North%2CSupport"' in page
    whole = re.search(r'<a href="([^"]+)"\s+data-teams="all"', page).group(1)
    assert whole == "?state=paused&amp;teams=all"  # the other filters kept
    page = client.get("/?state=paused&teams=all").content.decode()
    assert '<strong id="scope-label">Whole floor</strong>' in page
    assert 'ws-connect="/ws/live/"' in page and 'data-teams=""' in page
    assert re.search(r'data-teams="all"\s+aria-current="true"', page)
    mine = re.search(r'<a href="([^"]+)"\s+data-teams="Sales North,Support"', page).group(1)
    assert mine == "?state=paused&amp;teams=Sales+North%2CSupport"
    page = client.get("/?teams=Sales West").content.decode()  # a shared link
    assert '<strong id="scope-label">Teams: Sales West</strong>' in page
    assert scope.in_use(cache.get(TEAM_SETS_KEY)) >= {("Sales North", "Support")}


def test_a_team_page_arrives_with_its_teams_tiles_only(bob, client_for):
    from dashboard.live import snapshot
    from dashboard.main.bridge_task import live_feed

    cache.clear()
    feed = live_feed(LiveState(UTC), tick=0.1, heartbeat=60)
    feed.snapshot(FLOOR, [])
    view = feed.view
    view.render_changes(Changes(full=True))
    cache.set_many(snapshot.entries(7, view.view_parts(), view.teams.to_write(), view.teams.html))
    client = client_for(bob)
    page = client.get("/?teams=Support").content.decode()
    assert tiles(page) == ["s1"] and 'ws-connect="/ws/live/?v=7&amp;teams=Support"' in page
    assert sorted(tiles(client.get("/?teams=all").content.decode())) == ["n1", "n2", "s1", "w1"]


def test_someone_without_teams_sees_the_whole_floor_and_where_to_choose_them(carol, client_for):
    page = client_for(carol).get("/").content.decode()
    assert '<strong id="scope-label">Whole floor</strong>' in page
    assert "Choose my teams" in page
