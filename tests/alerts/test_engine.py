"""The engine's evaluation on a live state made by hand: hold to fire, escalation, hold to
clear, one alert per rule and subject, exact due moments between events."""

from datetime import UTC, timedelta
from zoneinfo import ZoneInfo

from dashboard.alerts.engine import (
    CLEARED,
    ESCALATED,
    RAISED,
    Engine,
    Floor,
    RuleSpec,
    sentence,
)
from dashboard.alerts.models import ALARM, QUEUE, TEAM, WARN, Metric
from dashboard.live.state import LiveState
from dashboard.testing.feeds import T0, Events


def at(s):
    return T0 + timedelta(seconds=s)


def floor_with(*inputs):
    state = LiveState(ZoneInfo("UTC"))
    for event in inputs:
        state.apply(event)
    return Floor(state, {"state": "connected", "since": T0})


def test_a_paused_agent_raises_once_held_escalates_and_clears_after_its_wait():
    events = Events()
    floor = floor_with(events.agent(0, "a1", "paused", name="Ann Lee"))
    rule = RuleSpec(1, "Paused", Metric.PAUSED, warn=10, alarm=20, hold_s=2, clear_s=3)
    engine = Engine([rule])
    assert engine.evaluate(floor, at(5)) == []
    assert engine.next_due(floor, at(5)) == at(12)  # crossing at 10 s, held 2 s
    [raised] = engine.evaluate(floor, at(12.5))
    assert (raised.kind, raised.level, raised.at, raised.subject) == (
        RAISED,
        WARN,
        at(12),
        "agent:a1",
    )
    assert engine.evaluate(floor, at(13)) == []  # one open alert per rule and subject
    [escalated] = engine.evaluate(floor, at(22))
    assert (escalated.kind, escalated.level, escalated.at) == (ESCALATED, ALARM, at(22))
    assert sentence(escalated, UTC) == (
        "Alarm: Ann Lee has been paused for 0:22 (limit 0:20), since 09:00."
    )
    floor.state.apply(events.agent(30, "a1", "available"))
    assert engine.evaluate(floor, at(31)) == []  # back to normal: not yet long enough
    assert engine.next_due(floor, at(31)) == at(34)
    [cleared] = engine.evaluate(floor, at(34))
    assert (cleared.kind, cleared.at) == (CLEARED, at(34))
    assert engine.trackers == {}


def test_a_condition_that_ends_before_its_hold_raises_nothing():
    events = Events()
    floor = floor_with(events.queue(0, "q1", 3, 28))
    rule = RuleSpec(1, "Wait", Metric.LONGEST_WAIT, QUEUE, "Billing", warn=30, hold_s=5)
    engine = Engine([rule])
    assert engine.evaluate(floor, at(1)) == []
    assert engine.evaluate(floor, at(4)) == []  # over the limit since 2 s: held 2 s of 5
    assert engine.next_due(floor, at(4)) == at(7)
    floor.state.apply(events.queue(5, "q1", 0, 0))
    assert engine.evaluate(floor, at(10)) == []
    assert engine.trackers == {}


def test_a_breach_that_returns_within_the_clear_wait_does_not_flap():
    events = Events()
    floor = floor_with(events.queue(0, "q1", 3, 40))
    rule = RuleSpec(1, "Waiting", Metric.CALLS_WAITING, warn=3, clear_s=10)
    engine = Engine([rule])
    assert [t.kind for t in engine.evaluate(floor, at(0))] == [RAISED]
    floor.state.apply(events.queue(1, "q1", 1, 5))
    assert engine.evaluate(floor, at(5)) == []
    floor.state.apply(events.queue(6, "q1", 4, 5))  # back over before 10 s of normal
    assert engine.evaluate(floor, at(12)) == []
    floor.state.apply(events.queue(13, "q1", 0, 0))
    assert engine.evaluate(floor, at(13)) == []  # evaluated on every change
    assert [t.kind for t in engine.evaluate(floor, at(23))] == [CLEARED]


def test_low_is_bad_limits_and_a_team_scope():
    events = Events()
    floor = floor_with(
        events.agent(0, "a1", "available", team="Sales"),
        events.agent(0, "a2", "on_call", team="Sales"),
        events.agent(0, "a3", "available", team="Support"),
    )
    rule = RuleSpec(1, "Free", Metric.AGENTS_AVAILABLE, TEAM, "sales", warn=2, alarm=1)
    [raised] = Engine([rule]).evaluate(floor, at(1))
    assert (raised.level, raised.value, raised.subject) == (ALARM, 1, "team:sales")


def test_an_alert_held_open_in_the_database_is_not_raised_again():
    events = Events()
    floor = floor_with(events.agent(0, "a1", "paused"))
    rule = RuleSpec(1, "Paused", Metric.PAUSED, warn=10, alarm=20)
    engine = Engine([rule])
    engine.restore(1, "agent:a1", WARN)
    [t] = engine.evaluate(floor, at(30))
    assert t.kind == ESCALATED


def test_an_alert_restored_open_clears_by_its_subject_when_the_condition_is_gone():
    floor = floor_with()  # the agent is no longer paused when this bridge takes over
    rule = RuleSpec(1, "Paused", Metric.PAUSED, warn=10, alarm=20, clear_s=1)
    engine = Engine([rule])
    engine.restore(1, "agent:a1", ALARM)
    assert engine.evaluate(floor, at(30)) == []
    [t] = engine.evaluate(floor, at(31))
    assert (t.kind, t.subject, t.level, t.at) == (CLEARED, "agent:a1", ALARM, at(31))
