"""The whole live view in the cache, for pages and sockets that arrive or missed pushes.

The agent tiles are kept per team, apart from the rest: at 10,000 agents the tiles are
6 MB, and one entry holding them all would be written again with every push (twenty a
second) and read whole by every socket that connects, a team's page included (each read
from the cache is a copy). Here a push writes only the teams whose tiles changed, a
team's page reads its teams' tiles only, and the whole floor's is joined from every team's.

A push writes the teams' tiles before the entry naming its version (`SNAPSHOT_KEY`), and
a reader reads that entry first: the tiles it then reads are of that version or newer,
and the pushes after that version, which the socket is sent next, bring every tile to the
newest. The agents with no team are kept under the team "".
"""

import hashlib

from django.core.cache import cache

from dashboard.shared.cache_keys import SNAPSHOT_KEY

from .team_tiles import AGENTS_CLOSE, AGENTS_OPEN, part

TEAMS_PART = "agents:teams"  # the teams whose tiles the view has, one a line


def tiles_key(team: str) -> str:
    """A team's tiles' entry (a hash of its name: any team name makes a valid key)."""
    return f"{SNAPSHOT_KEY}:tiles:{hashlib.sha256(team.encode()).hexdigest()[:20]}"


def entries(version: int, parts: dict[str, str], tiles: dict[str, str], teams) -> dict:
    """The cache entries of a push's whole view: `tiles`, the tiles of each team that changed
    (joined), first; then the view's other `parts` under its version, with all `teams`."""
    out = {tiles_key(team): html for team, html in tiles.items()}
    out[SNAPSHOT_KEY] = (version, {**parts, TEAMS_PART: "\n".join(sorted(teams))})
    return out


def read(teams: tuple[str, ...], *also: str, tiles=True) -> tuple[tuple | None, dict]:
    """The whole view for a page of `teams` (() the whole floor): (version, parts), its
    grid ("agents") and its teams' tiles among them (not read for a page without `tiles`),
    or None before the first push; and the cache entries `also`, read with it."""
    stored, got = read_head(*also)
    if stored is None or not tiles:
        return stored, got
    return with_tiles(stored, teams), got


def read_head(*also: str) -> tuple[tuple | None, dict]:
    """The entry naming the whole view's version, (version, parts but the tiles), or None
    before the first push; and the cache entries `also`, read with it."""
    got = cache.get_many([SNAPSHOT_KEY, *also])
    return got.pop(SNAPSHOT_KEY, None), got


def with_tiles(stored: tuple, teams: tuple[str, ...]) -> tuple:
    """The whole view `read_head` read, with the tiles of `teams` (() every team's)."""
    version, parts = stored
    if TEAMS_PART not in parts:  # written whole
        return stored
    shown = teams or parts[TEAMS_PART].split("\n")
    found = cache.get_many([tiles_key(team) for team in shown])
    joined = {team: found.get(tiles_key(team), "") for team in shown}
    parts = {
        **parts,
        "agents": "".join([AGENTS_OPEN, *joined.values(), AGENTS_CLOSE]),
        **{part(team): html for team, html in joined.items()},
    }
    return version, parts
