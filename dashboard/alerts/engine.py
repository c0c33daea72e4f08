"""The alert engine's evaluation: rules + what the floor shows + now -> transitions.

Pure: no I/O, no clock of its own. `readings(rule, floor, now)` reads each subject's value
from the live state (and the figures handed in from outside it); `Engine.evaluate(now)`
compares them with the rules' limits and returns the transitions (raised, escalated,
cleared) that fell due, each dated at the moment it truly fell due:

- a level is *held* once the value has been at or past its limit for the rule's `hold_s`;
  the alert is raised at the highest level held, and escalates (warn to alarm) when the
  alarm level is held; it never steps down while open;
- it clears once the value has been back on the good side of the warning limit for
  `clear_s` (no flapping); a subject that is gone (the agent left the state, the queue is
  empty) counts as back to normal.

Values that grow with time between events (a caller's wait, an agent's time in a state,
the service connection's time down) carry their `rate`, so the engine knows the exact
moment a limit is crossed even between events, and `next_due(now)` says when the next
transition can fall due: the loop sleeps until then, not a whole tick, and fires on time.

Rules about agents (ringing, wrap-up, paused too long) are *grouped*: each agent is followed
as above, but what is raised is one alert per rule and team, whose members are the agents
past the rule's first limit. It is raised when the first agent joins, escalated when as many
(`alarm_agents`) or as large a share (`alarm_share_pct`) of the team's agents are members,
or a member passes the alarm limit, and cleared once it has had no member for `clear_s`.
Members joining and leaving are a `changed` transition: the group's list, live, but no news
for the chat tools. At 1,000 agents one alert per agent was thousands an hour, each raised
and cleared within seconds; a team's tile already colours each agent.
"""

import functools
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, tzinfo
from typing import NamedTuple

from django.urls import NoReverseMatch, reverse

from dashboard.live import dom
from dashboard.live.state import LiveState, service_level_pct

from .models import (
    AGENT_STATES,
    ALARM,
    ALL,
    CAMPAIGN,
    METRICS,
    QUEUE,
    TEAM,
    WARN,
    Metric,
    limit_text,
)

RAISED, ESCALATED, CLEARED = "raised", "escalated", "cleared"
CHANGED = "changed"  # a group's members changed, its level did not
# Subjects stepped between two turns of the event loop: some 2.5 ms of a rule about agents
# (1,000 took 5 ms and more beside the floor10k bench's sockets, bench/loop_stalls.py).
SLICE = 500


@dataclass(frozen=True)
class RuleSpec:
    """A rule as the engine reads it (a model row's values, or made by hand in tests)."""

    id: int
    name: str
    metric: str
    scope: str = ALL
    scope_value: str = ""
    warn: float | None = None
    alarm: float | None = None
    hold_s: float = 0
    clear_s: float = 10
    alarm_agents: int | None = None  # a group's alarm: this many members, or
    alarm_share_pct: float | None = None  # this share of the team's agents

    @classmethod
    def of(cls, rule) -> "RuleSpec":
        return cls(
            rule.id,
            rule.name,
            rule.metric,
            rule.scope,
            rule.scope_value,
            rule.warn,
            rule.alarm,
            rule.hold_s,
            rule.clear_s,
            getattr(rule, "alarm_agents", None),
            getattr(rule, "alarm_share_pct", None),
        )

    @property
    def grouped(self) -> bool:
        """Its subjects are agents: one alert per team, listing them."""
        return self.metric in AGENT_STATES

    @property
    def low_is_bad(self) -> bool:
        return METRICS[self.metric][2]

    @property
    def unit(self) -> str:
        return METRICS[self.metric][1]

    def limit(self, level: str) -> float | None:
        return self.warn if level == WARN else self.alarm

    def beyond(self, value: float, level: str) -> bool:
        limit = self.limit(level)
        if limit is None:
            return False
        return value <= limit if self.low_is_bad else value >= limit


class Reading(NamedTuple):
    """One subject's value. `rate`: how much it grows per second until the next input.
    A tuple: an evaluation makes one for every agent in a limited state, and a frozen
    dataclass takes ten times as long to make."""

    subject: str  # "queue:<id>", "agent:<id>", "team:<name>", "floor", "service", ...
    label: str  # "Sales queue", "Ann Lee", "the floor"
    value: float
    rate: float = 0.0
    url: str = ""
    tile: str = ""  # a CSS selector of the tile showing it (live view and wallboard)
    team: str = ""  # an agent's team: the group it joins


@dataclass
class Floor:
    """What the engine reads: the live state, the upstream status, the feed's figures
    (from the webhook records), and figures from outside the live state (delivery failures,
    campaigns' pending leads) that the composition root hands in."""

    state: LiveState
    upstream: dict = field(default_factory=dict)  # {"state", "since": datetime | None}
    figures: dict = field(default_factory=dict)  # {"open_critical": n, ...}
    outside: dict = field(default_factory=dict)  # {"webhooks_failing": n, "leads": {...}}


@dataclass(frozen=True)
class Transition:
    kind: str  # raised, escalated, cleared
    rule: RuleSpec
    subject: str
    label: str
    level: str  # the alert's level after the transition
    value: float  # the value when it was found
    limit: float  # the limit of that level
    at: datetime  # when it fell due (held its duration, or back to normal long enough)
    found_at: datetime  # the evaluation that found it (at <= found_at)
    since: datetime | None = None  # when the value crossed the level's limit
    url: str = ""
    tile: str = ""
    members: tuple = ()  # a group's: ((agent id, name), ...), the longest first
    of: int = 0  # a group's: the agents of its team on the floor now

    @property
    def count(self) -> int:
        return len(self.members)


@dataclass
class Tracker:
    """One rule and subject: the open alert's level, and since when each level is passed."""

    level: str | None = None  # the open alert's level; None when none is open
    since: dict = field(default_factory=lambda: {WARN: None, ALARM: None})
    normal_since: datetime | None = None
    seen_at: datetime | None = None  # the last evaluation
    reading: Reading | None = None


@dataclass
class Group:
    """One rule and team of a grouped rule: the open alert's level and its members."""

    level: str | None = None
    members: tuple = ()  # as in Transition.members
    empty_since: datetime | None = None  # no member since
    label: str = ""
    since: datetime | None = None  # raised at


def team_sizes(floor: Floor) -> dict[str, int]:
    """Each group subject's agents on the floor now (not offline), from the state's
    running counts by team (tally.py) rather than a walk of every agent."""
    tally, sizes = floor.state.tally, {}
    for team, counts in tally.by_team.items():
        subject = group_subject(team or "")
        on_floor = tally.team_size[team] - counts.get("offline", 0)
        sizes[subject] = sizes.get(subject, 0) + on_floor
    return sizes


def group_subject(team: str) -> str:
    return f"team:{team}" if team else "floor"


def group_label(team: str) -> str:
    return f"team {team}" if team else "the floor"


def matches(wanted: str, *names) -> bool:
    wanted = wanted.strip().casefold()
    return any(wanted == (n or "").strip().casefold() for n in names)


def queue_label(name: str) -> str:
    return name if name.casefold().endswith("queue") else f"{name} queue"


@functools.lru_cache(maxsize=65536)
def url(name: str, *args) -> str:
    """A page's address by its URL name; "" for an id no address can hold. Kept for every
    agent of a large floor: each evaluation reads every agent in a limited state (5,000 of
    10,000), and a reversal costs more than the rest of a reading."""
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return ""


def readings(rule: RuleSpec, floor: Floor, now: datetime) -> list[Reading]:
    """Each subject's value for the rule, in its scope."""
    return [r for part in readings_sliced(rule, floor, now) for r in part]


def readings_sliced(rule: RuleSpec, floor: Floor, now: datetime):
    """`readings` a part at a time: a rule's about agents SLICE agents' at a time (at
    10,000 agents thousands ring at once, some 2 us a reading), at least one part. The
    agents it reads are taken at the first, so every part is of that moment."""
    if rule.metric not in AGENT_STATES:
        yield floor_readings(rule, floor, now)
        return
    status, wanted = AGENT_STATES[rule.metric], rule.scope_value
    agents = [
        a
        for a in floor.state.agents.values()
        if a.status == status
        and a.since is not None
        and (rule.scope != TEAM or matches(wanted, a.team))
    ]
    for at in range(0, len(agents) or 1, SLICE):
        yield [
            Reading(
                f"agent:{a.agent_id}",
                a.name or a.agent_id,
                max(0.0, (now - a.since).total_seconds()),
                1.0,
                url("agent", a.agent_id),
                dom.agent_tile(a.agent_id),
                a.team or "",
            )
            for a in agents[at : at + SLICE]
        ]


def floor_readings(rule: RuleSpec, floor: Floor, now: datetime) -> list[Reading]:
    """`readings` of a rule not about agents: queues, teams, the floor, the service."""
    state, metric = floor.state, rule.metric
    scope, wanted = rule.scope, rule.scope_value
    inbound = floor.figures.get("inbound") or {}
    plans = inbound.get("queues") or {}
    out = []
    if metric in (Metric.LONGEST_WAIT, Metric.CALLS_WAITING) or (
        metric == Metric.AGENTS_AVAILABLE and scope != TEAM
    ):
        for q in state.queues.values():
            if scope == QUEUE and not matches(wanted, q.id, q.name):
                continue
            closed = q.id in plans and not plans[q.id]["open"]
            if closed and metric != Metric.AGENTS_AVAILABLE:  # its schedule says closed
                continue
            if metric == Metric.LONGEST_WAIT:
                growing = q.waiting > 0
                value = q.longest_wait_s + max(0.0, (now - q.at).total_seconds()) if growing else 0
                rate = 1.0 if growing else 0.0
            else:
                value = q.waiting if metric == Metric.CALLS_WAITING else q.agents_available
                rate = 0.0
            out.append(
                Reading(
                    f"queue:{q.id}",
                    queue_label(q.name),
                    value,
                    rate,
                    url("home") + dom.queue_tile(q.id),
                    dom.queue_tile(q.id),
                )
            )
    elif metric == Metric.AGENTS_AVAILABLE:  # a team's
        count = sum(
            1 for a in state.agents.values() if a.status == "available" and matches(wanted, a.team)
        )
        out.append(Reading(f"team:{wanted}", f"team {wanted}", count, 0.0, url("home"), ""))
    elif metric == Metric.SERVICE_LEVEL:
        # The queues' own levels over their open minutes, where the service has queues.
        pct = inbound["floor_sl_pct"] if inbound else service_level_pct(state.day.totals)
        if pct is not None:
            out.append(Reading("floor", "the floor", pct, 0.0, url("home"), dom.WAIT_FIGURE))
    elif metric == Metric.COACHING:
        count = floor.figures.get("open_critical")
        if count is not None:
            link = url("coaching") + "?severity=critical&status=open"
            out.append(Reading("coaching", "coaching", count, 0.0, link, dom.COACHING_PANEL))
    elif metric == Metric.SERVICE_DOWN:
        status, since = floor.upstream.get("state"), floor.upstream.get("since")
        if status and status != "connected" and since is not None:
            down = max(0.0, (now - since).total_seconds())
            out.append(Reading("service", "the service connection", down, 1.0, url("readyz"), ""))
    elif metric == Metric.WEBHOOKS_FAILING:
        failing = floor.outside.get("webhooks_failing")
        if failing is not None:
            out.append(Reading("webhooks", "the service's webhooks", failing, 0.0, url("home"), ""))
    elif metric == Metric.CLOSED_CALLS:
        for queue_id, plan in plans.items():
            if scope == QUEUE and not matches(wanted, queue_id, plan["name"]):
                continue
            value = 1 if plan["closed_calls"] else 0
            label = queue_label(plan["name"])
            page = url("queue", queue_id)
            out.append(
                Reading(f"queue:{queue_id}", label, value, 0.0, page, dom.queue_tile(queue_id))
            )
    elif metric == Metric.VOICEMAIL_AGE:
        part = inbound.get("voicemail")
        if part and part["oldest_min"] is not None:
            age = part["oldest_min"] * 60
            page = url("voicemail")
            out.append(Reading("voicemail", "voicemail", age, 0.0, page, dom.VOICEMAIL_TILE))
    elif metric == Metric.OUTSIDE_NORMAL:
        for key, (label, beyond) in (floor.outside.get("normal") or {}).items():
            out.append(Reading(f"normal:{key}", label, beyond, 0.0, url("normal")))
    elif metric == Metric.PENDING_LEADS:
        for campaign_id, (name, pending) in (floor.outside.get("leads") or {}).items():
            if scope == CAMPAIGN and not matches(wanted, campaign_id, name):
                continue
            if pending is None:
                continue
            link = url("campaign", campaign_id)
            out.append(Reading(f"campaign:{campaign_id}", f"campaign {name}", pending, 0.0, link))
    return out


class Engine:
    """The trackers of every rule and subject; `evaluate` returns what fell due."""

    def __init__(self, rules: list[RuleSpec] = ()):
        self.rules: dict[int, RuleSpec] = {r.id: r for r in rules}
        self.trackers: dict[tuple[int, str], Tracker] = {}
        self.groups: dict[tuple[int, str], Group] = {}  # grouped rules' alerts, by team
        self.last: tuple = (None, {})  # (when, the readings of each rule then)

    def set_rules(self, rules: list[RuleSpec]) -> list[tuple[int, str]]:
        """Replace the rules; the open alerts of rules gone (deleted or disabled) are
        returned as (rule id, subject), and forgotten. A changed rule starts its timers over."""
        new = {r.id: r for r in rules}
        gone = []
        for key, tracker in list(self.trackers.items()):
            rule_id = key[0]
            if rule_id not in new:
                if tracker.level:
                    gone.append(key)
                del self.trackers[key]
            elif new[rule_id] != self.rules.get(rule_id):
                tracker.since = {WARN: None, ALARM: None}
                tracker.normal_since = None
        for key, group in list(self.groups.items()):
            if key[0] not in new or not new[key[0]].grouped:
                if group.level:
                    gone.append(key)
                del self.groups[key]
        self.rules = new
        self.last = (None, {})
        return gone

    def restore(self, rule_id: int, subject: str, level: str, members=(), since=None):
        """An alert the database holds open (a previous leader's, or before a restart)."""
        rule = self.rules.get(rule_id)
        if rule is not None and rule.grouped:
            members = tuple((str(m[0]), str(m[1])) for m in members)
            self.groups[(rule_id, subject)] = Group(level, members, None, "", since)
        else:
            self.trackers[(rule_id, subject)] = Tracker(level=level)

    def evaluate(self, floor: Floor, now: datetime) -> list[Transition]:
        return [t for found in self.evaluating(floor, now) for t in found]

    def evaluating(self, floor: Floor, now: datetime):
        """`evaluate`, a slice at a time: yields each rule's transitions once it is done,
        and an empty slice after each part of its readings (`readings_sliced`) and after
        every SLICE of its subjects. The watch lets the event loop run between slices (a
        rule about agents reads and steps thousands of them on a large floor, tens of ms
        at once); the agents a rule reads are taken at once, so what the loop changes
        meanwhile waits for the next evaluation, and the engine is used by that one task
        only."""
        seen = {}
        sizes = None  # each team's agents on the floor, counted once for the grouped rules
        followed: dict[int, set[str]] = {}  # each rule's subjects with a tracker, read once
        for rule_id, subject in self.trackers:
            followed.setdefault(rule_id, set()).add(subject)
        for rule in self.rules.values():
            seen[rule.id] = []
            for part in readings_sliced(rule, floor, now):
                seen[rule.id] += part
                yield []
            found = {r.subject: r for r in seen[rule.id]}
            subjects = found.keys() | followed.get(rule.id, set())
            # A group's member leaves as soon as it is back to normal; the group waits.
            each = replace(rule, clear_s=0) if rule.grouped else rule
            changes = []
            for n, subject in enumerate(subjects, 1):
                if n % SLICE == 0:
                    yield []
                key = (rule.id, subject)
                tracker = self.trackers.get(key)
                reading = found.get(subject)
                if tracker is None:
                    if reading is None or not self._beyond_any(rule, reading.value):
                        continue  # nothing to follow: normal and no alert open
                    tracker = self.trackers[key] = Tracker()
                change = self._step(each, subject, tracker, reading, now)
                if change:
                    changes.append(change)
                if tracker.level is None and tracker.since == {WARN: None, ALARM: None}:
                    del self.trackers[key]
            if rule.grouped:
                sizes = team_sizes(floor) if sizes is None else sizes
                yield self._group(rule, sizes, subjects, changes, now)
            else:
                yield changes
        self.last = (now, seen)

    def _group(self, rule: RuleSpec, sizes: dict, agents, changes, now) -> list[Transition]:
        """A grouped rule's per-team alerts, from its agents' trackers after this pass's
        `changes` (which stay inside the engine); `agents`: the subjects it stepped (every
        one with a tracker of the rule among them); `sizes`: each group's agents on the
        floor (`team_sizes`)."""
        teams: dict[str, list] = {}  # group subject -> [(value, agent id, name, level, team)]
        for subject in agents:
            tracker = self.trackers.get((rule.id, subject))
            if tracker is None or tracker.level is None or tracker.reading is None:
                continue
            r = tracker.reading
            teams.setdefault(group_subject(r.team), []).append(
                (r.value, subject.partition(":")[2], r.label, tracker.level, r.team)
            )
        moments: dict[str, dict[str, list]] = {}  # group subject -> {kind: [at, ...]}
        for c in changes:
            tracker = self.trackers.get((rule.id, c.subject))
            r = tracker.reading if tracker and tracker.reading else None
            team = r.team if r else ""
            moments.setdefault(group_subject(team), {}).setdefault(c.kind, []).append(c.at)
        out = []
        subjects = set(teams) | {s for (rid, s) in self.groups if rid == rule.id}
        for subject in sorted(subjects):
            key = (rule.id, subject)
            group = self.groups.get(key) or Group()
            rows = sorted(teams.get(subject, []), key=lambda m: (-m[0], m[1]))
            members = tuple((aid, name) for _, aid, name, _, _ in rows)
            if rows:
                group.label = group_label(rows[0][4])
            group.label = group.label or group_label(subject.partition(":")[2])
            of = sizes.get(subject, 0)
            at = moments.get(subject, {})
            count = len(members)
            alarm = count and (
                any(level == ALARM for *_, level, _ in rows)
                or (rule.alarm_agents and count >= rule.alarm_agents)
                or (rule.alarm_share_pct and of and 100 * count >= rule.alarm_share_pct * of)
            )
            target = ALARM if alarm else WARN if count else None

            def transition(kind, level, when, key=key, group=group, members=members, of=of):
                limit = rule.limit(WARN if rule.warn is not None else ALARM) or 0.0
                return Transition(
                    kind, rule, key[1], group.label, level, len(members), limit, when, now,
                    group.since, "", "", members, of,
                )  # fmt: skip

            if count:
                group.empty_since = None
            elif group.level and group.empty_since is None:
                group.empty_since = max(at.get(CLEARED, [now]))
            raised = at.get(RAISED, []) + at.get(ESCALATED, [])
            if group.level is None and target:
                group.level, group.since = target, min(at.get(RAISED, [now]))
                group.members = members
                out.append(transition(RAISED, target, group.since))
            elif group.level == WARN and target == ALARM:
                group.level, group.members = ALARM, members
                out.append(transition(ESCALATED, ALARM, max(raised or [now])))
            elif group.level and not count:
                done = group.empty_since + timedelta(seconds=rule.clear_s)
                if done <= now:
                    out.append(transition(CLEARED, group.level, done))
                    group.level, group.members = None, ()
            elif group.level and members != group.members:
                group.members = members
                out.append(transition(CHANGED, group.level, now))
            if group.level is None:
                self.groups.pop(key, None)
            else:
                self.groups[key] = group
        return out

    @staticmethod
    def _beyond_any(rule: RuleSpec, value: float) -> bool:
        return rule.beyond(value, WARN) or rule.beyond(value, ALARM)

    def _step(self, rule, subject, tracker: Tracker, reading: Reading | None, now):
        hold, clear = timedelta(seconds=rule.hold_s), timedelta(seconds=rule.clear_s)
        for level in (WARN, ALARM):
            if reading is not None and rule.beyond(reading.value, level):
                if tracker.since[level] is None:
                    tracker.since[level] = self._crossed(rule, tracker, reading, level, now)
            else:
                tracker.since[level] = None
        normal = reading is None or not self._beyond_any(rule, reading.value)
        if normal:
            tracker.normal_since = tracker.normal_since or now
        else:
            tracker.normal_since = None
        tracker.seen_at = now
        if reading is not None:
            tracker.reading = reading

        held = [
            level
            for level in (ALARM, WARN)
            if tracker.since[level] and tracker.since[level] + hold <= now
        ]
        target = held[0] if held else None
        last = tracker.reading
        # A subject gone (the agent left the state) is back to normal: a growing value is 0.
        gone = 0.0 if (last is None or last.rate > 0) else last.value
        value = reading.value if reading is not None else gone

        def transition(kind, level, at, since=None):
            limit = rule.limit(level if kind != CLEARED else WARN)
            if limit is None:
                limit = rule.limit(ALARM if rule.warn is None else WARN) or 0.0
            return Transition(
                kind,
                rule,
                subject,
                last.label if last else "",
                level,
                value,
                limit,
                at,
                now,
                since,
                last.url if last else "",
                last.tile if last else "",
            )

        if tracker.level is None and target:
            tracker.level = target
            return transition(RAISED, target, tracker.since[target] + hold, tracker.since[target])
        if tracker.level == WARN and target == ALARM:
            tracker.level = ALARM
            return transition(ESCALATED, ALARM, tracker.since[ALARM] + hold, tracker.since[ALARM])
        if tracker.level and tracker.normal_since and tracker.normal_since + clear <= now:
            level, at = tracker.level, tracker.normal_since + clear
            tracker.level, tracker.normal_since = None, None
            return transition(CLEARED, level, at)
        return None

    @staticmethod
    def _crossed(rule, tracker: Tracker, reading: Reading, level: str, now) -> datetime:
        """When the value crossed the limit: for a growing value, the exact moment (not
        before this subject's last evaluation, which saw it on the good side); else now."""
        if reading.rate > 0 and not rule.low_is_bad:
            over = (reading.value - rule.limit(level)) / reading.rate
            crossed = now - timedelta(seconds=over)
            if tracker.seen_at is not None:
                crossed = max(crossed, tracker.seen_at)
            return min(crossed, now)
        return now

    def next_due(self, floor: Floor, now: datetime) -> datetime | None:
        """The earliest moment after `now` at which a transition may fall due without any
        new input: a level's hold running out, a clear's wait running out, or a growing
        value reaching a limit plus its hold."""
        due = []
        for (rule_id, _), tracker in self.trackers.items():
            rule = self.rules.get(rule_id)
            if rule is None:
                continue
            hold = timedelta(seconds=rule.hold_s)
            for level in (WARN, ALARM):
                since = tracker.since[level]
                if since is not None and (tracker.level is None or tracker.level == WARN):
                    due.append(since + hold)
            if tracker.level and tracker.normal_since:
                due.append(tracker.normal_since + timedelta(seconds=rule.clear_s))
        for (rule_id, _), group in self.groups.items():
            rule = self.rules.get(rule_id)
            if rule is not None and group.level and group.empty_since:
                due.append(group.empty_since + timedelta(seconds=rule.clear_s))
        then, seen = self.last  # the last evaluation's readings, grown since, if any
        grown_s = (now - then).total_seconds() if then else 0.0
        waits = []  # seconds from now; floats, for every agent in a limited state
        for rule in self.rules.values():
            if rule.low_is_bad:
                continue
            limits = [x for x in (rule.limit(WARN), rule.limit(ALARM)) if x is not None]
            found = seen.get(rule.id) if then else None
            for reading in readings(rule, floor, now) if found is None else found:
                if reading.rate <= 0:
                    continue
                value = (
                    reading.value + reading.rate * grown_s if found is not None else reading.value
                )
                waits.extend((x - value) / reading.rate + rule.hold_s for x in limits if value < x)
        later = [d for d in due if d > now]
        ahead = [w for w in waits if w > 0]
        if ahead:
            later.append(now + timedelta(seconds=min(ahead)))
        return min(later) if later else None


def amount(value: float, unit: str) -> str:
    return limit_text(value, unit)


WHAT = {
    Metric.LONGEST_WAIT: "longest wait in {label} is {value}",
    Metric.CALLS_WAITING: "{value} calls waiting in {label}",
    Metric.SERVICE_LEVEL: "service level today is {value}",
    Metric.AGENTS_AVAILABLE: "{value} agents available in {label}",
    Metric.RINGING: "{label} has been ringing for {value}",
    Metric.WRAP_UP: "{label} has been in wrap-up for {value}",
    Metric.PAUSED: "{label} has been paused for {value}",
    Metric.COACHING: "{value} critical coaching alerts are open",
    Metric.SERVICE_DOWN: "the service connection has been down for {value}",
    Metric.WEBHOOKS_FAILING: "{value} service webhook deliveries failed in the last 15 minutes",
    Metric.PENDING_LEADS: "{label} has {value} pending leads left",
    Metric.CLOSED_CALLS: "{label} is receiving calls while its schedule says closed",
    Metric.VOICEMAIL_AGE: "the oldest voicemail not handled is {value} old",
}


def sentence(t: Transition, tz: tzinfo, raised_at: datetime | None = None) -> str:
    """One plain sentence, as the tray and the chat tools show it, e.g. "Alarm: longest
    wait in Sales queue is 2:35 (limit 2:00), since 10:41." """
    rule = t.rule
    if rule.grouped and t.kind != CLEARED:
        level = "Alarm" if t.level == ALARM else "Warning"
        since = (t.since or t.at).astimezone(tz).strftime("%H:%M")
        of = f" of {t.of}" if t.of else ""
        agents = "agent" if t.of <= 1 and t.count == 1 else "agents"
        return (
            f"{level}: {rule.name}: {t.count}{of} {agents} in {t.label}"
            f" (limit {amount(t.limit, rule.unit)}), since {since}."
        )
    if t.kind == CLEARED:
        raised = (raised_at or t.at).astimezone(tz).strftime("%H:%M")
        cleared = t.at.astimezone(tz).strftime("%H:%M")
        return (
            f"Cleared: {rule.name} for {t.label} is back to normal since {cleared}"
            f" (raised at {raised})."
        )
    what = WHAT[rule.metric].format(label=t.label, value=amount(t.value, rule.unit))
    level = "Alarm" if t.level == ALARM else "Warning"
    since = (t.since or t.at).astimezone(tz).strftime("%H:%M")
    return f"{level}: {what} (limit {amount(t.limit, rule.unit)}), since {since}."
