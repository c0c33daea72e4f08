"""Running counts over the floor's agents, kept as each agent changes.

The KPI strips need, four times a second, the agents by state (the floor's and each
team's) and today's time in the states under way counted up to now: a walk of every agent
each time, 3 to 4 ms at 10,000 agents. Here each change to the agents adjusts the counts
instead, and the time under way is worked out from sums: per state, how many agents
entered it before today's start (each counts from the start) and, for those that entered
it since, how many and the sum of the moments they did (each counts from its own), in
whole microseconds, so the figures are exact. An agent whose state began after the moment
asked for counts nothing (as in the walk): those are kept apart until that moment passes.
"""

from datetime import UTC, datetime, timedelta

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
US = timedelta(microseconds=1)


def us(when: datetime) -> int:
    return (when - EPOCH) // US


class Tally:
    """The agents by state, by team and state, and the sums that give the time in each
    `timed` state (the ones occupancy counts) today up to any moment."""

    def __init__(self, states, timed):
        self.states, self.timed = states, timed
        self.by_state: dict[str, int] = dict.fromkeys(states, 0)
        self.by_team: dict[str, dict[str, int]] = {}
        self.team_size: dict[str, int] = {}
        self.start: int | None = None  # today's start (us) the timed counts are split at
        self.before = dict.fromkeys(self.timed, 0)  # agents in the state since before the start
        self.since = dict.fromkeys(self.timed, 0)  # agents in it since the start
        self.sum = dict.fromkeys(self.timed, 0)  # the sum of those agents' moments of entry (us)
        self.ahead: dict[str, tuple[str, int]] = {}  # agent -> (state, entry) past `asked`
        self.asked: int | None = None  # the latest moment the time was asked up to

    def restart(self, start: datetime, agents):
        """A new day's start: the timed counts split again, over every agent."""
        self.start = us(start)
        self.before, self.since = dict.fromkeys(self.timed, 0), dict.fromkeys(self.timed, 0)
        self.sum, self.ahead, self.asked = dict.fromkeys(self.timed, 0), {}, None
        for agent in agents:
            self._time(agent, 1)

    def add(self, agent):
        self._count(agent, 1)
        self._time(agent, 1)

    def remove(self, agent):
        self._count(agent, -1)
        self._time(agent, -1)
        self.ahead.pop(agent.agent_id, None)

    def _count(self, agent, sign: int):
        status, team = agent.status, agent.team
        self.by_state[status] = self.by_state.get(status, 0) + sign
        counts = self.by_team.get(team)
        if counts is None:
            counts = self.by_team[team] = dict.fromkeys(self.states, 0)
        counts[status] = counts.get(status, 0) + sign
        size = self.team_size[team] = self.team_size.get(team, 0) + sign
        if not size:
            del self.by_team[team], self.team_size[team]

    def _time(self, agent, sign: int):
        status = agent.status
        if self.start is None or not agent.since or status not in self.before:
            return
        entered = us(agent.since)
        if entered < self.start:
            self.before[status] += sign
            return
        self.since[status] += sign
        self.sum[status] += sign * entered
        if sign > 0 and (self.asked is None or entered > self.asked):
            self.ahead[agent.agent_id] = (status, entered)

    def spent(self, now: datetime) -> dict[str, tuple[int, int]] | None:
        """Per timed state, the agents' time in it today up to `now` (us): of those in it
        since before today's start, and of those in it since; None when `now` is before
        a moment already asked for (the caller then walks the agents)."""
        at = us(now)
        if self.start is None or (self.asked is not None and at < self.asked):
            return None
        from_start = max(0, at - self.start)
        since = {s: self.since[s] * at - self.sum[s] for s in self.timed}
        for status, entered in self.ahead.values():
            if entered > at:  # begun after `now`: counts nothing yet
                since[status] += entered - at
        out = {s: (self.before[s] * from_start, since[s]) for s in self.timed}
        self.ahead = {a: x for a, x in self.ahead.items() if x[1] > at}
        self.asked = at
        return out


class Agents(dict):
    """The floor's agents by id, each change tallied (every way a dict changes)."""

    def __init__(self, agents, tally: Tally):
        super().__init__(agents)
        self.tally = tally
        for agent in self.values():
            tally.add(agent)

    def __setitem__(self, agent_id, agent):
        before = self.get(agent_id)
        if before is not None:
            self.tally.remove(before)
        super().__setitem__(agent_id, agent)
        self.tally.add(agent)

    def __delitem__(self, agent_id):
        self.tally.remove(self[agent_id])
        super().__delitem__(agent_id)

    def pop(self, agent_id, *default):
        if agent_id in self:
            self.tally.remove(self[agent_id])
        return super().pop(agent_id, *default)

    def popitem(self):
        agent_id, agent = super().popitem()
        self.tally.remove(agent)
        return agent_id, agent

    def setdefault(self, agent_id, agent):
        if agent_id not in self:
            self[agent_id] = agent
        return self[agent_id]

    def update(self, *others, **more):
        for agent_id, agent in dict(*others, **more).items():
            self[agent_id] = agent

    def clear(self):
        for agent in self.values():
            self.tally.remove(agent)
        super().clear()

    def __ior__(self, other):
        self.update(other)
        return self
