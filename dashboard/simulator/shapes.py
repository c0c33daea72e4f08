"""Histories of a known shape, for tests of the normal and of what changed
(`--history-shape`, repeatable):

- `steady`: every same weekday alike (the day's draws seeded by its weekday, its ids by its
  date), so the last four weeks agree and a day that follows them is normal;
- `surge@HH:MM`: today, from that time (the organisation's zone) until the start, agents
  wait half as long between calls: twice the calls;
- `pause:TEAM@HH:MM`: today, that team's agents pause at that time and stay paused into
  the live model (their live state's `since` is that time; the model leaves them be for
  an hour), so the past and the live floor agree.
"""

from dataclasses import dataclass
from datetime import date, datetime, time

PAUSE_HOLD_S = 3600  # the live model leaves a paused team be this long after the start


@dataclass(frozen=True)
class Shape:
    steady: bool = False
    surge_at: float | None = None  # today's hour the surge starts
    pause_team: str = ""
    pause_at: float | None = None  # today's hour the team pauses


NONE = Shape()  # the past as the seed makes it


def _hour(text: str) -> float:
    hours, minutes = text.split(":")
    value = int(hours) + int(minutes) / 60
    if not 0 <= value < 24:
        raise ValueError(text)
    return value


def parse(specs: list[str]) -> Shape:
    """The shape of `--history-shape` values; ValueError with the value that is wrong."""
    shape = {}
    for spec in specs:
        try:
            if spec == "steady":
                shape["steady"] = True
            elif spec.startswith("surge@"):
                shape["surge_at"] = _hour(spec.removeprefix("surge@"))
            elif spec.startswith("pause:") and "@" in spec:
                team, at = spec.removeprefix("pause:").rsplit("@", 1)
                shape["pause_team"], shape["pause_at"] = team, _hour(at)
            else:
                raise ValueError(spec)
        except ValueError:
            raise ValueError(
                f"--history-shape {spec!r}: steady, surge@HH:MM or pause:TEAM@HH:MM"
            ) from None
    return Shape(**shape)


def day_seed(shape: Shape, base: str, day: date) -> str:
    """What seeds a day's draws: its date, or with `steady` its weekday."""
    return f"{base}:{day.weekday()}" if shape.steady else f"{base}:{day.isoformat()}"


def wait_factor(shape: Shape, today: bool, hour: float) -> float:
    """How much longer than usual an agent waits between calls at `hour`."""
    surging = today and shape.surge_at is not None and hour >= shape.surge_at
    return 0.5 if surging else 1.0


def pause_team(shape: Shape, centre, zone, start: float):
    """The team paused since `pause_at` today, as the live model starts (before the past
    is made, so each of its agents' past stops there)."""
    if shape.pause_at is None:
        return
    today = datetime.fromtimestamp(start, zone).date()
    at = datetime.combine(today, time.min, zone).timestamp() + shape.pause_at * 3600
    for agent in centre.agents.values():
        if agent.team == shape.pause_team and at < start:
            agent.status, agent.since, agent.call_id = "paused", at, None
            agent.until = start + PAUSE_HOLD_S
