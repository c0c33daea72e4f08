"""What changed on histories the simulator makes with a known shape (`--history-shape`,
dashboard/simulator/shapes.py): the same weekday alike for four weeks, and today either
the same (nothing to report), with a surge of calls from a known hour (calls offered
above normal, the rate of calls first), or with a team pausing at a known hour (calls
offered below normal, the agents' time first and, within it, that team's agents). The
dashboard reads it all from the service's history, as in production, and the live view's
"What changed" panel reports it."""

import re
from datetime import datetime, timedelta
from html import unescape
from zoneinfo import ZoneInfo

import pytest

from dashboard.testing.processes import wait_until
from dashboard.testing.servers import start_dashboard
from dashboard.testing.zones import late_morning

ZONE = late_morning()
SINCE = datetime.now(ZoneInfo(ZONE)).hour - 1  # a whole hour, an hour or more ago


@pytest.fixture
def shaped(sim_factory, tmp_path):
    servers = []

    def start(*shape: str):
        shapes = [x for s in ("steady", *shape) for x in ("--history-shape", s)]
        sim = sim_factory(
            "--seed", "5", "--agents", "40", "--zone", ZONE, "--history-days", "35", *shapes
        )  # fmt: skip
        started = datetime.now(ZoneInfo(ZONE))
        env = {"TIME_ZONE": ZONE, "NORMAL_EVAL_S": "2"}
        server = start_dashboard(sim, tmp_path, env, people={"bob": "supervisor"})
        servers.append(server)
        return server.signed_in_client("bob"), started

    yield start
    for server in servers:
        server.stop()


def panel(client) -> str:
    page = unescape(" ".join(client.get("/").text.split()))
    return page.split('id="changed"', 1)[1].split("</section>", 1)[0]


def read_when(client, done) -> str:
    """The panel once `done(panel)` holds (the backfill reads four weeks meanwhile)."""
    return wait_until(
        lambda: (got := panel(client)) and done(got) and got, 180, lambda: panel(client)
    )


def changes(html: str) -> list[str]:
    return re.findall(r'<li data-key="(\w+)" data-ongoing="\w+"> <strong> ?(.*?) ?</strong>', html)


def before_the_start(started: datetime) -> str:
    """The last whole slot before the one the simulator started in: the live model's own
    calls (and agents' first states up to 10 minutes before it) fill the slots after."""
    slot = started.replace(minute=started.minute // 15 * 15, second=0, microsecond=0)
    return f"{slot - timedelta(minutes=15):%H:%M}"


def test_a_steady_history_reports_nothing(shaped, tmp_path):
    client, started = shaped()
    html = read_when(client, lambda got: "Nothing outside its normal" in got or "→" in got)
    edge = before_the_start(started)
    early = [(key, said) for key, said in changes(html) if said.rsplit(" since ", 1)[1] < edge]
    assert early == [], html
    assert "No normal yet" not in html and "Too noisy" not in html


def test_a_surge_from_a_known_hour_is_reported_with_the_rate_of_calls_first(shaped):
    client, _ = shaped(f"surge@{SINCE:02d}:00")
    html = read_when(client, lambda got: re.search(r"Calls offered \d+ → \d+ since", got))
    offered = surge_change(html, "offered")
    said = re.search(r"Calls offered (\d+) → (\d+) since", offered)
    assert int(said[2]) > int(said[1]) and "above its normal band" in offered
    first = offered.split('<ul class="causes"> <li>', 1)[1].strip()
    assert first.startswith("calls per agent hour") and "above normal" in first.split("(")[0]


def surge_change(html: str, key: str) -> str:
    """The change of `key` that began in the surge's first half hour (the simulator's own
    start, an hour later, may begin other runs)."""
    runs = html.split(f'data-key="{key}"')[1:]
    began = [
        run.split('data-key="', 1)[0]
        for run in runs
        if f"{SINCE:02d}:00" <= re.search(r"since (\d\d:\d\d)", run)[1] < f"{SINCE:02d}:31"
    ]
    assert len(began) == 1, html
    return began[0]


def test_a_team_pausing_at_a_known_hour_is_reported_with_its_agents(shaped):
    client, _ = shaped(f"pause:Sales North@{SINCE:02d}:00")
    html = read_when(client, lambda got: "agents of Sales North paused since" in got)
    offered = surge_change(html, "offered")
    said = re.search(r"Calls offered (\d+) → (\d+) since", offered)
    assert int(said[2]) < int(said[1]) and "below its normal band" in offered, html
    first = offered.split('<ul class="causes"> <li>', 1)[1].strip()
    assert first.startswith("agents' time signed in") and "below normal" in first.split("(")[0]
    # The team first, ahead of anyone the live model paused since.
    row = first.split('<ul class="causes"> <li>', 1)[1].split("</li>")[0]
    team = re.search(r"(\d+) agents of Sales North paused since (\d\d:\d\d)", row)
    assert int(team[1]) == 10 and team[2] == f"{SINCE:02d}:00"  # 40 agents in 4 teams
    assert row.count('href="/agents/') == 10
