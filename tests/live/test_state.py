"""The live state model, input by input, and each KPI against hand-computed figures."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from dashboard.live.state import LiveState
from dashboard.testing.feeds import T0, Events
from dashboard.upstream import contract as c

NOW = T0 + timedelta(hours=1)  # when the figures are asked for


@pytest.fixture
def state():
    return LiveState(ZoneInfo("UTC"), service_level_s=20)


@pytest.fixture
def events():
    return Events()


def test_it_moves_an_agent_through_every_state(state, events):
    for i, status in enumerate(c.AGENT_STATUSES):
        changes = state.apply(events.agent(i, "a1", status))
        assert changes.agents == {"a1"} and changes.kpis
        assert state.agents["a1"].status == status
    assert state.kpis(NOW)["agents"]["offline"] == 1
    assert sum(state.kpis(NOW)["agents"].values()) == 1


def test_it_counts_an_unknown_status_as_unknown_not_dropped(state, events):
    agent = c.parse_agent_rest({"agentId": "a1", "name": "Ava", "status": "lunch"})
    state.load_snapshot([agent], [], NOW)
    assert state.kpis(NOW)["agents"]["unknown"] == 1


def test_it_tracks_a_call_from_start_to_end(state, events):
    state.apply(events.agent(0, "a1", "available"))
    changes = state.apply(events.started(1, "k1", "a1"))
    assert changes.calls == {"k1"} and changes.agents == {"a1"}
    assert state.kpis(NOW)["active_calls"] == 1
    changes = state.apply(events.updated(5, "k1", "in_progress", "a1"))
    assert state.calls["k1"].state == "in_progress" and changes.calls == {"k1"}
    changes = state.apply(events.ended(65, "k1", 60))
    assert changes.removed_calls == {"k1"} and "k1" not in state.calls
    assert state.kpis(NOW)["completed_today"] == 1


def test_it_ignores_an_update_for_a_call_it_does_not_know(state, events):
    assert not state.apply(events.updated(1, "ghost", "on_hold"))
    assert state.calls == {}


def test_it_counts_ai_calls(state, events):
    state.apply(events.started(0, "k1", None, ai=True))
    state.apply(events.started(0, "k2", "a1"))
    assert state.kpis(NOW)["ai_calls"] == 1
    state.apply(events.ended(30, "k1", 30))
    k = state.kpis(NOW)
    assert k["completed_today"] == 1 and k["aht_s"] is None  # AI calls have no handle time


def test_it_computes_aht_as_talk_plus_wrap_up_over_handled_calls(state, events):
    # Call 1: 100 s talk, 20 s wrap-up. Call 2: 200 s talk, 40 s wrap-up. AHT = 360/2 = 180.
    state.apply(events.started(0, "k1", "a1"))
    state.apply(events.ended(100, "k1", 100))
    state.apply(events.agent(100, "a1", "wrap_up", "k1"))
    state.apply(events.agent(120, "a1", "available"))
    state.apply(events.started(130, "k2", "a2"))
    state.apply(events.ended(330, "k2", 200))
    state.apply(events.agent(330, "a2", "wrap_up", "k2"))
    state.apply(events.agent(370, "a2", "available"))
    assert state.kpis(NOW)["aht_s"] == 180


def test_it_computes_service_level_from_the_wait_of_answered_inbound_calls(state, events):
    # Answered after 5 s (in), 30 s (out), 0 s (nobody waiting: in). SL = 2/3 = 66.7 %.
    state.apply(events.queue(0, "q", 1, 5))
    state.apply(events.started(0, "k1", "a1", direction="inbound"))
    state.apply(events.queue(10, "q", 1, 25))
    state.apply(events.started(15, "k2", "a2", direction="inbound"))  # 25 + 5 s since stats
    state.apply(events.queue(16, "q", 0, 0))
    state.apply(events.started(20, "k3", "a3", direction="inbound"))
    state.apply(events.started(21, "k4", "a4", direction="outbound"))  # outbound: not offered
    assert state.kpis(NOW)["service_level_pct"] == 66.7


def test_it_has_no_service_level_before_any_inbound_call(state):
    assert state.kpis(NOW)["service_level_pct"] is None


def test_it_sums_queues_and_counts_the_longest_wait_on_between_statistics(state, events):
    state.apply(events.queue(0, "q1", 3, 40))
    state.apply(events.queue(0, "q2", 2, 75))
    k = state.kpis(T0)
    assert (k["waiting"], k["longest_wait_s"]) == (5, 75)
    assert state.kpis(T0 + timedelta(seconds=10))["longest_wait_s"] == 85  # still waiting
    state.apply(events.queue(20, "q2", 0, 0))
    assert state.kpis(T0 + timedelta(seconds=30))["longest_wait_s"] == 70  # q1: 40 + 30


def test_a_queues_day_counts_follow_its_statistics_events(state, events):
    state.apply(events.queue(0, "q1", 1, 5))
    q = state.queues["q1"]
    assert (q.offered, q.answered, q.abandoned) == (None, None, None)  # not carried: unknown
    changes = state.apply(events.queue(5, "q1", 0, 0, offered=7, answered=5, abandoned=2))
    q = state.queues["q1"]
    assert (q.offered, q.answered, q.abandoned) == (7, 5, 2) and changes.queues == {"q1"}


def test_it_starts_a_new_day_at_midnight_in_the_organisations_zone():
    state = LiveState(ZoneInfo("Europe/London"))
    late = datetime(2026, 11, 23, 23, 59, tzinfo=UTC)
    state.apply(c.Event("call.ended", "o", 1, late, c.CallEnded("k1", late, "sale", 60)))
    assert state.kpis(late)["completed_today"] == 1
    after = late + timedelta(minutes=2)
    state.apply(c.Event("call.ended", "o", 2, after, c.CallEnded("k2", after, "sale", 30)))
    assert state.kpis(after)["completed_today"] == 1
    assert state.kpis(after)["aht_s"] == 30


def test_a_snapshot_replaces_agents_and_calls_and_asks_for_a_full_render(state, events):
    state.apply(events.agent(0, "gone", "available"))
    agent = c.Agent("a1", "Ava", "Sales", "on_call", T0, "k1")
    call = c.Call("k1", "a1", None, "outbound", "in_progress", False, T0)
    changes = state.load_snapshot([agent], [call], NOW)
    assert changes.full
    assert set(state.agents) == {"a1"} and state.call_of(agent) == call


def test_changes_merge_keeps_the_newest_fate_of_a_call():
    from dashboard.live.state import Changes

    merged = Changes(calls={"k1"}).merge(Changes(removed_calls={"k1"}))
    assert merged.calls == set() and merged.removed_calls == {"k1"}
    merged = Changes(removed_calls={"k1"}).merge(Changes(calls={"k1"}))
    assert merged.calls == {"k1"} and merged.removed_calls == set()
