"""The agent tiles of one team, a part of their own in every push and whole view.

A page that shows a team set ("my floor", accounts/scope.py) is sent its teams' tiles
only: at 10,000 agents in teams of a hundred, a team's page would otherwise be sent a
hundred times the tiles it shows, and the whole floor's pushes framed for every team set.
The tiles are rendered once, as for the whole floor; each team's part joins the same
strings. An agent moved to another team is sent to its old team's pages once more, where
the page's filter (`data-team`) drops it.
"""

AGENTS_OPEN = '<div id="agents" class="agents">'
AGENTS_CLOSE = "</div>"


def part(team: str) -> str:
    """The name of a team's tiles' part."""
    return f"agents@{team}"


def by_team(tiles: dict[str, str], teams: dict[str, set[str]]) -> dict[str, str]:
    """Each team's part of these tiles (agent id -> html), given the teams each agent's
    tile goes to."""
    out: dict[str, list[str]] = {}
    for agent_id, html in tiles.items():
        for team in teams.get(agent_id, ()):
            out.setdefault(part(team), []).append(html)
    return {name: "".join(htmls) for name, htmls in out.items()}


def is_whole(parts: dict[str, str]) -> bool:
    """Whether these parts are a whole view (its grid in its container), not a push."""
    return parts.get("agents", "").startswith(AGENTS_OPEN)


def compose(parts: dict[str, str], teams: tuple[str, ...]) -> str:
    """The tiles of `teams`: in the grid's container for a whole view, bare for a push."""
    tiles = "".join(parts.get(part(team), "") for team in teams)
    return f"{AGENTS_OPEN}{tiles}{AGENTS_CLOSE}" if is_whole(parts) else tiles


class TeamTiles:
    """Each team's tiles joined, kept as tiles change: the parts of the whole view that a
    push rewrites in the cache only for the teams it changed (snapshot.py). Each team keeps
    its agents' tiles in order, so joining a team again is one join of its strings."""

    def __init__(self):
        self.members: dict[str, dict[str, str]] = {}  # team -> its agents' tiles, in order
        self.team_of: dict[str, str] = {}  # agent id -> the team its tile was last sent to
        self.html: dict[str, str] = {}  # team -> its tiles joined
        self.stale: set[str] = set()  # teams whose tiles changed since they were joined
        self.unwritten: set[str] = set()  # teams whose joined tiles the cache lacks

    def reset(self, tiles: dict[str, str], teams: dict[str, str]):
        """Every agent's tile (agent id -> html) and team (a whole view); a team no longer
        there is written empty."""
        gone = set(self.members)
        self.members, self.team_of, self.html = {}, dict(teams), {}
        for agent_id, team in teams.items():
            self.members.setdefault(team, {})[agent_id] = tiles.get(agent_id, "")
        self.stale = set(self.members)
        self.unwritten |= gone | self.stale

    def changed(self, agent_id: str, team: str, html: str) -> set[str]:
        """An agent's tile changed to `html`; the teams whose pages are sent it: its own
        and, when it moved, its old one once more (whose pages' filter hides it)."""
        old = self.team_of.get(agent_id)
        if old != team:
            if old is not None:
                self.members[old].pop(agent_id, None)
                self.stale.add(old)
            self.team_of[agent_id] = team
        self.members.setdefault(team, {})[agent_id] = html
        self.stale.add(team)
        return {team, old} - {"", None}

    def join(self):
        """Join the stale teams' tiles again."""
        for team in self.stale:
            self.html[team] = "".join(self.members.get(team, {}).values())
        self.unwritten |= self.stale
        self.stale = set()

    def to_write(self) -> dict[str, str]:
        """The joined tiles the cache lacks, by team; `written` once they are in it."""
        return {team: self.html.get(team, "") for team in self.unwritten}

    def written(self, teams):
        self.unwritten -= set(teams)
