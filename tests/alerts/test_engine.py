"""The engine's evaluation on a live state made by hand: hold to fire, escalation, hold to
clear, one alert per rule and subject, exact due moments between events."""

import random
from datetime import UTC, timedelta
from zoneinfo import ZoneInfo

from dashboard.alerts.engine import (
    CHANGED,
    CLEARED,
    ESCALATED,
    RAISED,
    SLICE,
    Engine,
    Floor,
    RuleSpec,
    sentence,
    url,
)
from dashboard.alerts.models import AGENT_STATES, ALARM, QUEUE, TEAM, WARN, Metric
from dashboard.live.state import LiveState
from dashboard.testing.feeds import T0, Events


def at(s):
    return T0 + timedelta(seconds=s)


def floor_with(*inputs):
    state = LiveState(ZoneInfo("UTC"))
    for event in inputs:
        state.apply(event)
    return Floor(state, {"state": "connected", "since": T0})


def test_a_paused_agent_raises_its_teams_group_once_held_escalates_and_clears_after_its_wait():
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
        "team:Sales",
    )
    assert raised.members == (("a1", "Ann Lee"),) and raised.of == 1
    assert engine.evaluate(floor, at(13)) == []  # one open alert per rule and team
    [escalated] = engine.evaluate(floor, at(22))  # its one member passed the alarm limit
    assert (escalated.kind, escalated.level, escalated.at) == (ESCALATED, ALARM, at(22))
    assert sentence(escalated, UTC) == (
        "Alarm: Paused: 1 of 1 agent in team Sales (limit 0:10), since 09:00."
    )
    floor.state.apply(events.agent(30, "a1", "available"))
    assert engine.evaluate(floor, at(31)) == []  # no member now: not yet long enough
    assert engine.next_due(floor, at(31)) == at(34)
    [cleared] = engine.evaluate(floor, at(34))
    assert (cleared.kind, cleared.at, cleared.subject) == (CLEARED, at(34), "team:Sales")
    assert engine.trackers == {} and engine.groups == {}


def test_agents_crossing_together_make_one_alert_per_team_members_join_and_leave_share_escalates():
    events = Events()
    sales = [events.agent(0, f"s{i}", "available", name=f"S{i}", team="Sales") for i in range(12)]
    floor = floor_with(*sales, events.agent(0, "u1", "ringing", name="U1", team="Support"))
    for i in (0, 1):
        floor.state.apply(events.agent(0, f"s{i}", "ringing", name=f"S{i}", team="Sales"))
    rule = RuleSpec(1, "Ringing too long", Metric.RINGING, warn=20, clear_s=5, alarm_share_pct=40)
    engine = Engine([rule])

    def kinds(transitions):
        return sorted((t.kind, t.subject, t.level, t.count, t.of) for t in transitions)

    assert kinds(engine.evaluate(floor, at(21))) == [
        (RAISED, "team:Sales", WARN, 2, 12),  # two agents, one alert
        (RAISED, "team:Support", ALARM, 1, 1),  # all of its agents: past 40 %
    ]
    for i in (2, 3):
        floor.state.apply(events.agent(22, f"s{i}", "ringing", name=f"S{i}", team="Sales"))
    assert engine.evaluate(floor, at(30)) == []
    [joined] = engine.evaluate(floor, at(43))  # two more passed 20 s: 4 of 12, a third
    assert (joined.kind, joined.level, joined.count) == (CHANGED, WARN, 4)
    assert [m[0] for m in joined.members] == ["s0", "s1", "s2", "s3"]  # the longest first
    floor.state.apply(events.agent(44, "s0", "on_call", name="S0", team="Sales"))
    [left] = engine.evaluate(floor, at(45))
    assert (left.kind, left.count, left.since) == (CHANGED, 3, at(20))
    assert sentence(left, UTC) == (
        "Warning: Ringing too long: 3 of 12 agents in team Sales (limit 0:20), since 09:00."
    )
    for i in (4, 5, 6):
        floor.state.apply(events.agent(46, f"s{i}", "ringing", name=f"S{i}", team="Sales"))
    [escalated] = engine.evaluate(floor, at(67))  # 6 of 12: half the team
    assert (escalated.kind, escalated.level, escalated.count, escalated.at) == (
        ESCALATED,
        ALARM,
        6,
        at(66),
    )
    for i in range(1, 7):
        floor.state.apply(events.agent(70, f"s{i}", "on_call", name=f"S{i}", team="Sales"))
    assert engine.evaluate(floor, at(71)) == []  # no member: the clear wait runs
    assert engine.next_due(floor, at(71)) == at(76)
    [cleared] = engine.evaluate(floor, at(76))
    assert (cleared.kind, cleared.subject, cleared.level) == (CLEARED, "team:Sales", ALARM)
    assert sentence(cleared, UTC, raised_at=at(20)) == (
        "Cleared: Ringing too long for team Sales is back to normal since 09:01 (raised at 09:00)."
    )
    assert set(engine.groups) == {(1, "team:Support")}


def test_a_group_escalates_by_its_count_of_agents():
    events = Events()
    floor = floor_with(*[events.agent(0, f"a{i}", "wrap_up", team="Sales") for i in range(3)])
    rule = RuleSpec(1, "Wrap-up", Metric.WRAP_UP, warn=60, alarm=600, alarm_agents=3)
    [t] = Engine([rule]).evaluate(floor, at(61))
    assert (t.kind, t.level, t.count) == (RAISED, ALARM, 3)


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
    floor = floor_with(events.agent(0, "a1", "paused"), events.queue(0, "q1", 5, 40))
    rules = [
        RuleSpec(1, "Paused", Metric.PAUSED, warn=10, alarm=20),
        RuleSpec(2, "Waiting", Metric.CALLS_WAITING, warn=3, alarm=5),
    ]
    engine = Engine(rules)
    engine.restore(1, "team:Sales", WARN, [["a1", "Ava"]], at(10))
    engine.restore(2, "queue:q1", WARN)
    assert sorted((t.kind, t.subject) for t in engine.evaluate(floor, at(30))) == [
        (ESCALATED, "queue:q1"),
        (ESCALATED, "team:Sales"),  # its member is past the alarm limit
    ]


def test_an_alert_restored_open_clears_by_its_subject_when_the_condition_is_gone():
    floor = floor_with()  # the agent is no longer paused when this bridge takes over
    rule = RuleSpec(1, "Paused", Metric.PAUSED, warn=10, alarm=20, clear_s=1)
    engine = Engine([rule])
    engine.restore(1, "team:Sales", ALARM, [["a1", "Ava"]])
    assert engine.evaluate(floor, at(30)) == []
    [t] = engine.evaluate(floor, at(31))
    assert (t.kind, t.subject, t.level, t.at) == (CLEARED, "team:Sales", ALARM, at(31))


def test_every_agent_over_a_limit_is_in_some_open_groups_list():
    """A busy floor of 200 agents in four teams moving at random for ten minutes, evaluated
    twice a second: whoever has been in a state past a rule's limit (and its hold) is listed
    by the open alert of their team and rule, as the transitions say it, at every pass."""
    rng = random.Random(38)
    events = Events()
    teams = ["Sales North", "Sales South", "Retention", "Support"]
    agents = {f"a{i}": teams[i % 4] for i in range(200)}
    floor = floor_with(*[events.agent(0, a, "available", team=t) for a, t in agents.items()])
    rules = [
        RuleSpec(1, "Ringing", Metric.RINGING, warn=20, clear_s=30, alarm_share_pct=10),
        RuleSpec(2, "Wrap-up", Metric.WRAP_UP, warn=25, alarm=60, hold_s=2, clear_s=5),
        RuleSpec(3, "Paused", Metric.PAUSED, TEAM, "Support", warn=40, clear_s=0),
    ]
    engine = Engine(rules)
    lists: dict[tuple[int, str], set] = {}  # open alerts' members, from the transitions
    raised = 0
    for step in range(1, 1200):
        now_s = step / 2
        for agent_id in rng.sample(sorted(agents), 20):  # 40 state changes a second
            status = rng.choice(["available", "ringing", "on_call", "wrap_up", "paused"])
            floor.state.apply(events.agent(now_s, agent_id, status, team=agents[agent_id]))
        for t in engine.evaluate(floor, at(now_s)):
            key = (t.rule.id, t.subject)
            if t.kind == CLEARED:
                del lists[key]
            else:
                lists[key] = {m[0] for m in t.members}
                raised += t.kind == RAISED
        for a in floor.state.agents.values():
            for rule in rules:
                if a.status != AGENT_STATES[rule.metric]:
                    continue
                if rule.scope == TEAM and a.team != rule.scope_value:
                    continue
                spent = (at(now_s) - a.since).total_seconds()
                if spent > rule.warn + rule.hold_s:
                    group = (rule.id, f"team:{a.team}")
                    assert a.agent_id in lists.get(group, ()), (now_s, rule.name, a.agent_id)
    assert raised >= 4  # the floor did cross its limits


def test_a_floor_of_ten_thousand_agents_is_read_again_without_working_out_their_addresses():
    """Each evaluation reads every agent in a limited state (thousands on a large floor,
    twice a second on the bridge's event loop): each one's page address is worked out
    once, not at every evaluation."""
    events = Events()
    floor = floor_with(*(events.agent(0, f"a{n}", "wrap_up") for n in range(10_000)))
    engine = Engine([RuleSpec(1, "Wrap-up", Metric.WRAP_UP, warn=60)])
    [raised] = engine.evaluate(floor, at(61))
    assert raised.count == 10_000
    worked_out = url.cache_info().misses
    assert engine.evaluate(floor, at(62)) == []
    assert url.cache_info().misses == worked_out


def test_an_evaluation_goes_a_slice_at_a_time_and_ends_where_a_whole_one_would():
    """The watch lets the event loop run between slices: after every SLICE of a rule's
    readings and of its subjects. Each rule's transitions come with its last slice, and
    they and the due moments after are those of a whole evaluation."""
    events = Events()
    floor = floor_with(
        *(events.agent(0, f"a{n}", "wrap_up", team=f"T{n % 2}") for n in range(2 * SLICE)),
        events.agent(0, "p1", "paused"),
    )
    rules = [
        RuleSpec(1, "Wrap-up", Metric.WRAP_UP, warn=60),
        RuleSpec(2, "Paused", Metric.PAUSED, warn=600),
    ]
    sliced, whole = Engine(rules), Engine(rules)
    slices = list(sliced.evaluating(floor, at(61)))
    assert [[(t.kind, t.subject) for t in found] for found in slices] == [
        [], [], [], [], [(RAISED, "team:T0"), (RAISED, "team:T1")], [], []
    ]  # fmt: skip
    assert [t.kind for t in whole.evaluate(floor, at(61))] == [RAISED, RAISED]
    assert sliced.next_due(floor, at(61)) == whole.next_due(floor, at(61)) == at(600)
