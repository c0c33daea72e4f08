"""Who the live pushes go to: each audience is sent only the parts its page shows.

A push carries its fragments as named parts (agents and each team's tiles (team_tiles.py),
calls, queues, kpis and a KPI strip per team set pages show (accounts/scope.py), the
wallboard's panels, status). An audience (`Shows`: the live view of a team set, a
wallboard with its panel set) gets them joined into one frame per push by the process's
fan-out (fanout.py), never per browser: a KPI-only wallboard receives no agent names, no
calls, and a team's page only its teams' tiles.
"""

from dataclasses import dataclass

from dashboard.accounts import scope

from . import team_tiles

# What a wallboard may show ("changed": the live view's "What changed" panel)
PANELS = ("kpis", "agents", "queues", "campaigns", "qa", "alerts", "changed")


@dataclass(frozen=True)
class Shows:
    """An audience of the live pushes: the parts its page shows, and the teams whose KPI
    strip and agent tiles it shows (() for the whole floor's: team_tiles.py). Every frame
    ends with the header's status (freshness, AI line), which every page shows."""

    parts: tuple[str, ...]
    teams: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return "+".join(self.parts) + (f"@{scope.key(self.teams)}" if self.teams else "")

    def part(self, parts: dict[str, str], name: str) -> str:
        """What this audience is sent of the part `name`: its teams' KPI strip and tiles."""
        if name == "kpis":
            return parts.get(kpis_part(self.teams), "")
        if name == "agents" and self.teams:
            return team_tiles.compose(parts, self.teams)
        return parts.get(name, "")

    def compose(self, parts: dict[str, str]) -> str:
        """The frame of a push or a snapshot: "" when nothing it shows changed (the fan-out
        then advances the audience's version without writing anything)."""
        return "".join([*(self.part(parts, p) for p in self.parts), parts.get("status", "")])

    def frame(self, message: dict) -> str:
        return self.compose(message["parts"])


LIVE_VIEW = Shows(("agents", "calls", "queues", "kpis", "changed"))


def kpis_part(teams: tuple[str, ...]) -> str:
    """The name of the KPI strip's part for a team set ("kpis": the whole floor's)."""
    return f"kpis@{scope.key(teams)}" if teams else "kpis"


def wallboard(panels) -> Shows:
    """What a kiosk link's screen is sent: its panels and nothing else (calls never)."""
    return Shows(tuple(p for p in PANELS if p in panels))
