"""The "What changed" panel, live: a dashboard served on days of known shape (the same
weekday of four weeks, today with a third of the agents' time gone from a known hour)
against the simulated tenant shows the change on the live view and on a wallboard, and
when four agents of one team pause on the simulator the next evaluation names them under
the agents' time, pushed to the open pages over their sockets."""

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from dashboard.testing.browsers import screenshot, sign_in
from dashboard.testing.links import create_link
from dashboard.testing.normal_days import rows, slot, write_sqlite
from dashboard.testing.servers import migrated_sqlite, start_dashboard
from dashboard.testing.zones import late_morning

ZONE = late_morning()


@pytest.fixture
def served(sim_factory, tmp_path):
    sim = sim_factory("--faults", "--seed", "3", "--agents", "20", "--zone", ZONE)
    now = datetime.now(ZoneInfo(ZONE))
    since = now.hour - 1  # a whole hour, an hour or more ago

    def shape(hour, weeks_ago):  # a third of the agents' time gone; the rest busier
        if weeks_ago == 0 and hour >= since:
            return slot(40, agents_s=6000.0, busy=1.0, sl=(10, 20))
        return None

    database = tmp_path / "dashboard.sqlite3"
    migrated_sqlite(database, {"bob": "supervisor", "alice": "manager"})
    whole = now.hour + now.minute // 15 / 4  # today's whole slots only: the live one is live
    write_sqlite(database, rows(ZoneInfo(ZONE), now, until=whole, shape=shape))
    server = start_dashboard(sim, tmp_path, {"TIME_ZONE": ZONE, "NORMAL_EVAL_S": "1"})
    yield sim, server, f"{since:02d}:00"
    server.stop()


def test_the_panel_shows_the_change_and_follows_a_team_pausing(served, browser):
    sim, server, since = served
    sentence = f"Service level 90% → 50% since {since}"
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    wall = browser.new_page(viewport={"width": 1600, "height": 900})
    try:
        sign_in(page, server, "bob")
        page.wait_for_selector(f"#changed >> text={sentence}", timeout=30_000)
        first = page.locator("#changed li[data-key=service_level] .causes > li").first
        # A third gone from the rows written; the live slot's own counting may add a little.
        assert re.match(r"agents' time signed in \d\d% below normal", first.inner_text())
        address = create_link(server.signed_in_client("alice"), "Changes TV", ["changed"])
        wall.goto(address)
        wall.wait_for_selector(f"#changed >> text={sentence}", timeout=30_000)

        # Four agents of one team pause (the model held, everyone else available).
        sim.control("pause")
        agents = sorted(sim.agents(), key=lambda a: a["agentId"])
        team = agents[0]["team"]
        pausing = [a for a in agents if a["team"] == team][:4]
        assert len(pausing) == 4, agents
        for agent in agents:
            status = "paused" if agent in pausing else "available"
            sim.control("agent-status", agent_id=agent["agentId"], status=status)
        said = f"4 agents of {team} paused since"
        for shown in (page, wall):
            shown.wait_for_selector(f"#changed >> text={said}", timeout=30_000)
        cause = page.locator("#changed li[data-key=service_level] .causes > li").first
        team_row = cause.locator("ul > li").first
        assert said in team_row.inner_text()
        links = team_row.locator("a")
        assert links.first.get_attribute("href").startswith("/?teams=all&team=")
        named = {links.nth(n).get_attribute("href") for n in range(1, 5)}
        assert named == {f"/agents/{a['agentId']}/" for a in pausing}
        screenshot(page, "what-changed-live")
        screenshot(wall, "what-changed-wallboard")
    finally:
        page.close()
        wall.close()
