"""The running tally of the agents (live/tally.py) against a walk of them: the agents by
state and by team, and today's time in the states under way, after every kind of change
the live state and the replay make, with states begun before today, and after the moment
asked for."""

import random
from collections import Counter
from datetime import timedelta
from zoneinfo import ZoneInfo

from dashboard.live.state import STATES, LiveState
from dashboard.testing.feeds import T0, Events
from dashboard.upstream import contract as c

TEAMS = ["Sales", "Support", ""]


def walked(state: LiveState) -> tuple[Counter, dict]:
    """The agents by state and by team and state, counted one by one."""
    by_state = Counter(dict.fromkeys(STATES, 0))
    by_team: dict[str, Counter] = {}
    for agent in state.agents.values():
        by_state[agent.status] += 1
        by_team.setdefault(agent.team, Counter(dict.fromkeys(STATES, 0)))[agent.status] += 1
    return by_state, by_team


def agent(rng: random.Random, n: int, now) -> c.Agent:
    # states begun yesterday, this morning, and up to a minute after `now`
    since = now + timedelta(seconds=rng.randint(-30 * 3600, 60))
    status = rng.choice((*c.AGENT_STATUSES, "unknown"))
    return c.Agent(f"a{n}", f"A{n}", rng.choice(TEAMS), status, since, None)


def test_the_tally_is_the_walk_through_a_day_of_changes():
    rng, events = random.Random(36), Events()
    state = LiveState(ZoneInfo("Europe/Paris"))
    now = T0 + timedelta(hours=3)
    state.load_snapshot([agent(rng, n, now) for n in range(60)], [], now)
    for step in range(600):
        now += timedelta(seconds=rng.randint(0, 180))
        kind = rng.random()
        if kind < 0.75:  # an agent's change, as the service sends it
            a = agent(rng, rng.randrange(80), now)
            at_s = (now - T0).total_seconds()
            state.apply(events.event("agent.status", at_s, c.AgentChanged(a)))
        elif kind < 0.85:  # the replay drops an agent that left the floor
            state.agents.pop(f"a{rng.randrange(80)}", None)
        elif kind < 0.9:  # the service's truth reloaded
            state.load_snapshot([agent(rng, n, now) for n in range(rng.randrange(70))], [], now)
        elif kind < 0.93:  # the replay's documents set the agents whole
            state.agents = {f"b{n}": agent(rng, n, now) for n in range(20)}
        if step % 7 == 0:
            asked = now - timedelta(seconds=30) if step % 21 == 0 else now  # earlier: a walk
            assert state.today(asked) == state.walk_today(asked)
            by_state, by_team = walked(state)
            assert state.kpis(asked)["agents"] == dict(by_state)
            figures = state.team_figures()
            assert {t: x["agents"] for t, x in figures.items()} == {
                t: dict(x) for t, x in by_team.items()
            }
    assert state.day.date != T0.date()  # the test crossed midnight in the organisation's zone


def test_time_under_way_counts_from_the_start_of_the_day_and_not_before_a_state_began():
    state = LiveState(ZoneInfo("UTC"))
    midnight = T0.replace(hour=0)
    agents = [
        c.Agent("early", "E", "Sales", "on_call", midnight - timedelta(hours=2), None),
        c.Agent("later", "L", "Sales", "available", T0, None),
        c.Agent("future", "F", "Sales", "wrap_up", T0 + timedelta(minutes=10), None),
    ]
    state.load_snapshot(agents, [], T0)
    day, counted, wrapping = state.today(T0 + timedelta(minutes=5))
    assert day.busy_s == 9 * 3600 + 300  # from midnight; the wrap-up has not begun
    assert day.available_s == 300 and day.handle_s == 0
    assert (counted, wrapping) == (3, 1)
    day, _, _ = state.today(T0 + timedelta(minutes=12))
    assert day.busy_s == 9 * 3600 + 720 + 120 and day.handle_s == 120


def test_a_team_whose_last_agent_moved_is_no_longer_counted():
    state, events = LiveState(ZoneInfo("UTC")), Events()
    state.load_snapshot([c.Agent("a1", "A", "Solo", "available", T0, None)], [], T0)
    assert state.team_figures()["Solo"]["agents"]["available"] == 1
    state.apply(events.agent(5, "a1", "paused", team="Support"))
    figures = state.team_figures()
    assert "Solo" not in figures and figures["Support"]["agents"]["paused"] == 1


def test_every_way_the_agents_dict_changes_is_tallied():
    state = LiveState(ZoneInfo("UTC"))
    rng, now = random.Random(7), T0
    state.agents = {f"a{n}": agent(rng, n, now) for n in range(10)}
    agents = state.agents
    del agents["a1"]
    agents.update({"a2": agent(rng, 2, now), "z1": agent(rng, 11, now)}, z2=agent(rng, 12, now))
    agents.setdefault("a3", agent(rng, 3, now))  # there: unchanged
    agents.setdefault("z3", agent(rng, 13, now))
    agents.popitem()
    agents |= {"z4": agent(rng, 14, now)}
    agents.pop("a5")
    assert dict(walked(state)[0]) == state.kpis(now)["agents"]
    assert state.today(now) == state.walk_today(now)
    agents.clear()
    assert sum(state.kpis(now)["agents"].values()) == 0 and state.team_figures() == {}
