"""The KPI strip written by Python (live/strip.py) is byte for byte the strip the template
live/_kpis.html renders, for the whole floor's and team sets' with hostile names."""

import itertools
import random
from datetime import timedelta
from zoneinfo import ZoneInfo

from django.template.loader import get_template
from django.utils.safestring import mark_safe

from dashboard.live.render import Renderer, ascii_html
from dashboard.live.state import STATES, LiveState
from dashboard.live.strip import strip_html
from dashboard.testing.feeds import T0, Events
from dashboard.upstream import contract as c

TEAMS = ["", "Sales North", 'Sales <script>"x"</script>, O\'Neil & Co', "Zoë, 東京 ‮"]


def test_the_python_strip_is_the_templates_for_varied_figures_and_teams():
    template = get_template("live/_kpis.html")
    rng = random.Random(36)
    floor = mark_safe('<div class="kpi">the floor &amp; its figures</div>')
    why = mark_safe('<p hidden data-why="day">Counted from &lt;x&gt;</p>')
    for teams, unknown in itertools.product(TEAMS, (0, 3)):
        agents = {s: rng.randrange(0, 5000) for s in STATES} | {"unknown": unknown}
        kpis = {
            "agents": agents,
            "agents_total": sum(agents.values()),
            "active_calls": rng.randrange(0, 3000),
            "ai_calls": rng.randrange(0, 300),
        }
        context = {"kpis": kpis, "floor": floor, "why": why, "teams": teams}
        expected = template.render(context)
        assert strip_html(kpis, floor, why, teams) == expected
        assert ("unknown</div>" in expected) == bool(unknown)
        assert "<script>" not in expected


def test_a_team_sets_strip_shows_its_teams_agents_and_the_floors_figures():
    state, events = LiveState(ZoneInfo("UTC")), Events()
    agents = [
        c.Agent(f"a{i}", f"A{i}", TEAMS[i % 4], STATES[i % 6], T0 + timedelta(seconds=i), None)
        for i in range(24)
    ]
    state.load_snapshot(agents, [], T0)
    state.apply(events.started(30, "k1", "a2", direction="inbound"))
    state.apply(events.ended(90, "k1", 60))
    team = TEAMS[2]
    strips = Renderer().kpi_strips(
        state, {"service_level_s": 20}, T0 + timedelta(minutes=5), {(team,)}
    )
    mine, whole = strips[(team,)], strips[()]
    assert mine == ascii_html(mine) and "<script>" not in mine
    assert 'data-teams="Sales &lt;script&gt;' in mine and 'data-teams=""' in whole
    assert "of 6 agents" in mine and "of 24 agents" in whole
    # the floor's figures are the floor's in both: one completed call
    assert mine.count("calls ended: 1 agent-handled") == 1
    assert whole.count("calls ended: 1 agent-handled") == 1
