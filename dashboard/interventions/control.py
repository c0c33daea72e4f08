"""Asking the service to act (contract 6.1) while the supervisor waits, recording every
request and its answer, and saying the answer in a sentence.

Nothing here claims what only was asked: a 201 means the service is ringing the
supervisor's phone; the session's state on every page comes from the service's
`call.monitor` events. A 404 or 405 on the group's path hides its controls for a while.
"""

import logging
from dataclasses import dataclass, field

from channels.db import database_sync_to_async

from dashboard.live.names import agent_names
from dashboard.upstream import interventions as ask
from dashboard.upstream.contract import MONITOR_MODES, SETTABLE_STATUSES
from dashboard.upstream.on_request import service

from . import policy
from .models import Intervention

log = logging.getLogger("dashboard.interventions")
DONE, REFUSED, FAILED = Intervention.DONE, Intervention.REFUSED, Intervention.FAILED
STATUS_WORDS = {"available": "available", "paused": "paused", "offline": "signed out"}
STATUS_VERBS = {"available": "make them available", "offline": "sign them out"}
PAUSE_REASONS = ("Coaching", "Break", "Meeting", "Training", "Lunch")


@dataclass
class Result:
    ok: bool
    message: str
    status: int = 200  # our answer's HTTP status
    session: dict | None = None
    agent: dict | None = None
    hide: str = ""  # "monitor" / "agent-status": the service lacks it, hide its controls
    extra: dict = field(default_factory=dict)

    def json(self) -> dict:
        out = {"ok": self.ok, "message": self.message, **self.extra}
        if self.session is not None:
            out["session"] = self.session
        if self.agent is not None:
            out["agent"] = self.agent
        if self.hide:
            out["hidden"] = self.hide
        return out


def name_of(user) -> str:
    return (user.get_full_name() or user.get_username())[:150]


async def own_session(user, call_id: str) -> str:
    """The session of this person on this call the service told us of, if not hung up."""
    last = (
        await Intervention.objects.filter(by=user, call_id=call_id)
        .exclude(session_id="")
        .exclude(outcome=FAILED)
        .afirst()
    )
    if last is None or (last.action == Intervention.HANG_UP and last.outcome == DONE):
        return ""
    return last.session_id


async def monitor(user, call_id: str, mode: str, dial: str) -> Result:
    """Start monitoring, or switch the mode of the session this person has on the call."""
    if mode not in MONITOR_MODES:
        return Result(False, "Choose listen, whisper or barge.", 400)
    rest = service()
    session_id = await own_session(user, call_id)
    if session_id:
        answer = await ask.switch_monitor(rest, call_id, session_id, mode)
        if answer.ok or not _gone(answer):
            return await _record(user, Intervention.SWITCH, answer, call_id, mode, session_id)
    answer = await ask.start_monitor(rest, call_id, mode, str(user.pk), name_of(user), dial)
    agent_id = (await database_sync_to_async(policy.call_of)(call_id))[0]
    return await _record(
        user, Intervention.MONITOR, answer, call_id, mode, agent_id=agent_id, dial=dial
    )


async def hang_up(user, call_id: str) -> Result:
    session_id = await own_session(user, call_id)
    if not session_id:
        return Result(False, "You have no monitoring session on this call.", 409)
    answer = await ask.end_monitor(service(), call_id, session_id)
    if _gone(answer):  # it had ended already (the call, or the supervisor's own phone)
        answer = ask.Answer(204)
    return await _record(user, Intervention.HANG_UP, answer, call_id, "hang up", session_id)


async def set_state(user, agent_id: str, status: str, reason: str) -> Result:
    if status not in SETTABLE_STATUSES:
        return Result(False, "Choose available, paused or offline.", 400)
    answer = await ask.set_agent_state(service(), agent_id, status, reason, name_of(user))
    asked = f"{status}: {reason}" if reason else status
    return await _record(user, Intervention.STATE, answer, agent_id=agent_id, asked=asked)


def _gone(answer: ask.Answer) -> bool:
    """The session is no more (ended, or unknown to the service)."""
    return answer.code in ("session_ended", "no_such_session") or (
        answer.status == 404 and not answer.not_offered
    )


async def _record(
    user, action, answer: ask.Answer, call_id="", asked="", session_id="", agent_id="", dial=""
) -> Result:
    session_id = (answer.session and answer.session.session_id) or answer.session_id or session_id
    if answer.agent:
        agent_id = answer.agent.agent_id
    result = _in_words(action, answer, asked, agent_id, dial)
    outcome = DONE if answer.ok else FAILED if result.status in (502, 504) else REFUSED
    await Intervention.objects.acreate(
        by=user,
        by_name=name_of(user),
        action=action,
        call_id=call_id,
        agent_id=agent_id,
        session_id=session_id or "",
        asked=asked[:300],
        outcome=outcome,
        http_status=answer.status,
        answer=result.message[:500],
    )
    log.info("%s asked %s (%s): %s", user.get_username(), action, asked, answer.status)
    if answer.session:
        s = answer.session
        result.session = {
            "session_id": s.session_id,
            "call_id": s.call_id,
            "mode": s.mode,
            "state": s.state,
            "started_at": s.started_at.isoformat() if s.started_at else None,
        }
    if answer.agent:
        a = answer.agent
        result.agent = {
            "agent_id": a.agent_id,
            "name": a.name,
            "status": a.status,
            "pending_status": a.pending_status,
            "changed_by": a.changed_by,
        }
    if result.hide:
        policy.mark_absent(result.hide)
    return result


def _in_words(action, answer: ask.Answer, asked: str, agent_id: str, dial: str) -> Result:
    """What the supervisor is told: done only on a 2xx, and each refusal as it is."""
    group = "agent-status" if action == Intervention.STATE else "monitor"
    who = _agent_name(answer, agent_id)
    status = asked.partition(":")[0]
    if answer.ok:
        if action == Intervention.MONITOR:
            return Result(True, f"The service is ringing you on {dial} to {asked} in on this call.")
        if action == Intervention.SWITCH:
            return Result(True, f"Switched to {asked}.")
        if action == Intervention.HANG_UP:
            return Result(True, "Hung up: your monitoring session has ended.")
        agent = answer.agent
        if agent and agent.pending_status == "paused" and agent.status != "paused":
            return Result(True, f"{who} will be paused after this call and its wrap-up.")
        return Result(True, f"{who} is {STATUS_WORDS.get(status, status)} now.")
    if answer.status is None:
        if answer.code == "timeout":
            return Result(
                False,
                "The service did not answer within 5 seconds. Nothing is shown as done; "
                "if it went through, the page shows it as soon as the service says so.",
                504,
            )
        return Result(False, f"The service could not be reached ({answer.message}).", 502)
    if answer.status in (404, 405) and answer.not_offered:
        what = "setting agents' states" if group == "agent-status" else "monitoring calls"
        return Result(
            False, f"This service does not offer {what}; the controls are hidden.", 404, hide=group
        )
    code = answer.code
    if code in ("no_such_call", "no_such_agent"):
        what = "call" if code == "no_such_call" else "agent"
        return Result(False, f"The service does not know this {what}.", 404)
    if code == "call_not_live":
        return Result(
            False, "This call has ended or is not connected yet: there is nothing to join.", 409
        )
    if code == "already_monitored":
        return Result(
            False,
            "The service refused: you already have a monitoring session on this call. "
            "Switch its mode or hang up from the session bar.",
            409,
        )
    if code == "agent_busy":
        return Result(
            False,
            f"{who} is busy with a call: you can only pause them now (the pause starts "
            f"after the wrap-up), not {STATUS_VERBS.get(status, status)}.",
            409,
        )
    if code == "invalid_dial":
        return Result(
            False,
            f"The service refused your monitoring phone ({dial}). Correct it in your "
            "settings and try again.",
            422,
        )
    if answer.status == 403:
        return Result(
            False,
            "The service refused (403): the dashboard's service user may not do this. "
            "An administrator can give it a role that can.",
            403,
        )
    if answer.status >= 500:
        return Result(
            False,
            f"The service failed (HTTP {answer.status}) and did not do it. Try again in a moment.",
            502,
        )
    said = answer.message or code or "no reason given"
    return Result(False, f"The service refused (HTTP {answer.status}): {said}.", 409)


def _agent_name(answer: ask.Answer, agent_id: str) -> str:
    if answer.agent:
        return answer.agent.name
    return agent_names().get(agent_id) or "The agent"
