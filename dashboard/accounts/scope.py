"""Whose floor a page shows: the person's own teams ("my floor") or the whole floor.

The scope is in the address (`?teams=Sales North,Support`, `?teams=all`), so a view can be
shared; without one it is the person's teams (Preferences.teams), or the whole floor for a
person who chose none. An older single-team link (`?team=x`) keeps the scope of a person
whose teams include x and is the whole floor otherwise: the team filter then narrows the
tiles, as it always did. Team names holding a comma cannot be put in a scope.

The KPI strip is rendered once per push for each team set a page shows, never per browser:
pages register their set here (`register`), the feed reads the sets in use (`in_use`).
The register is one cache entry: two new sets registered in the same instant may lose one,
which its page's socket registers again as it connects (and at every reconnect). A set is
registered only with a team the floor knows, and at most MAX_SETS are rendered.
"""

import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache

from dashboard.shared.cache_keys import TEAM_SETS_KEY

ALL = "all"
MAX_TEAMS = 20  # in one scope
MAX_SETS = 256  # in use at once: the feed renders one strip each (the oldest one drops out)
RENEW_S = 60  # a registration younger than this is not written again


def set_ttl_s() -> int:
    """How long a team set stays registered after its last socket connected: past the
    sockets' hourly reconnect. Read when used (the bench imports this before settings)."""
    return settings.SOCKET_MAX_AGE_S + 600  # AccessGuard reconnects a socket this often


def key(teams: tuple[str, ...]) -> str:
    """The team set as it is written in the address and names its strip: "a,b"."""
    return ",".join(teams)


def parse(value: str) -> tuple[str, ...]:
    """`teams=` as given: sorted, each name once, at most MAX_TEAMS; () for "all"."""
    if value.strip().lower() == ALL:
        return ()
    names = {n.strip() for n in value.split(",")}
    return tuple(sorted(n for n in names if n and len(n) <= 100))[:MAX_TEAMS]


@dataclass(frozen=True)
class Scope:
    teams: tuple[str, ...]  # () is the whole floor
    mine: tuple[str, ...]  # the person's own teams

    @property
    def is_mine(self) -> bool:
        return bool(self.teams) and self.teams == self.mine

    @property
    def param(self) -> str:
        """What `teams=` says for this scope."""
        return key(self.teams) or ALL

    @property
    def label(self) -> str:
        """Whose figures these are, in a few words."""
        if not self.teams:
            return "Whole floor"
        n = len(self.teams)
        what = self.teams[0] if n == 1 else f"{n} teams"
        return f"My floor: {what}" if self.is_mine else f"Teams: {what}"


def scope_of(query, mine: tuple[str, ...]) -> Scope:
    """The scope a request's query string (a QueryDict or dict) asks for."""
    if query.get("teams"):
        return Scope(parse(query["teams"]), mine)
    team = query.get("team")
    if team and team not in mine:
        return Scope((), mine)
    return Scope(mine, mine)


def link(query, teams: tuple[str, ...]) -> str:
    """The address of a request's filters (a QueryDict) over `teams`, the single-team
    filter dropped."""
    params = query.copy()
    params.pop("team", None)
    params["teams"] = key(teams) or ALL
    return f"?{params.urlencode()}"


def links(query, shown: Scope) -> dict:
    """The "My floor · Whole floor" links of a page (templates/accounts/_scope.html)."""
    return {
        "mine": link(query, shown.mine),
        "mine_param": key(shown.mine),
        "all": link(query, ()),
    }


def register(teams: tuple[str, ...], known) -> bool:
    """Ask the feed for this set's strip (`known`: the floor's teams); True when written."""
    if not teams or not set(teams) & set(known or ()):
        return False
    now = time.time()
    sets = cache.get(TEAM_SETS_KEY) or {}
    if now - sets.get(key(teams), 0) < RENEW_S:
        return False
    sets = {k: t for k, t in sets.items() if now - t < set_ttl_s()}
    sets[key(teams)] = now
    if len(sets) > MAX_SETS:
        sets = dict(sorted(sets.items(), key=lambda kv: kv[1])[-MAX_SETS:])
    cache.set(TEAM_SETS_KEY, sets, timeout=set_ttl_s())
    return True


def in_use(sets: dict | None) -> set[tuple[str, ...]]:
    """The team sets registered and not lapsed, from the register's cache entry."""
    now = time.time()
    return {tuple(k.split(",")) for k, t in (sets or {}).items() if now - t < set_ttl_s()}
