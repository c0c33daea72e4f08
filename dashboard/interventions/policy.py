"""Who may act on whom: Supervisors and Managers monitor, pause and make available; only
Managers sign an agent out; a Supervisor with "my floor" set acts on their teams' agents
only; the wallboard role never. The pages hide what a person may not do, from the same
rules (`abilities`); the endpoints enforce them (403)."""

from django.core.cache import cache

from dashboard.accounts.models import teams_of
from dashboard.accounts.roles import MANAGER, RANK, SUPERVISOR, user_role
from dashboard.live.publish import live_calls
from dashboard.shared.cache_keys import AGENT_TEAMS_KEY

ABSENT_KEY = "interventions:absent:{}"  # "monitor" / "agent-status": the service lacks it
ABSENT_S = 600  # a 404/405 hides the controls this long, then they are offered again


def abilities(user) -> dict | None:
    """What this person may do, for the page's script and the endpoints; None: nothing."""
    role = user_role(user)
    if role is None or RANK[role] < RANK[SUPERVISOR]:
        return None
    return {
        "user": str(user.pk),
        "role": role,
        "sign_out": role == MANAGER,
        # () is every team; a Supervisor with "my floor" set acts on those teams only
        "teams": teams_of(user) if role == SUPERVISOR else (),
        "monitor": not cache.get(ABSENT_KEY.format("monitor")),
        "state": not cache.get(ABSENT_KEY.format("agent-status")),
    }


def team_of(agent_id: str) -> str | None:
    """The agent's team as the live floor last told it (None: not on the floor)."""
    return (cache.get(AGENT_TEAMS_KEY) or {}).get(agent_id)


def call_of(call_id: str) -> tuple[str, str]:
    """(agent id, team) of a live call as the live floor last showed it; ("", "") unknown."""
    return live_calls().get(call_id, ("", ""))


def refusal(can: dict | None, *, team: str | None, status: str = "") -> str:
    """Why this person may not act on an agent of `team` (asking `status`); "" if they may."""
    if can is None:
        return "Acting on the floor needs the Supervisor or Manager role."
    if status == "offline" and not can["sign_out"]:
        return "Signing an agent out is for Managers."
    if can["teams"] and team not in can["teams"]:
        teams = ", ".join(can["teams"])
        return f"You act on your own teams only ({teams}); this agent is not in them."
    return ""


def mark_absent(group: str):
    cache.set(ABSENT_KEY.format(group), True, ABSENT_S)
