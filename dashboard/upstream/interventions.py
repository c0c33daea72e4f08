"""Asking the service to act on the floor (contract 6.1): monitor a call, switch or end the
session, set an agent's state.

Each is one request with a 5 s timeout, never retried: a retried POST could ring the
supervisor's phone twice. The answer comes back as it was (`Answer`), refusals included,
so the caller can record it and say it in words; nothing here raises for the service's
answers.
"""

import logging
from dataclasses import dataclass
from urllib.parse import quote

import httpx

from . import contract as c
from .errors import ContractError, UpstreamError
from .rest import RestClient

log = logging.getLogger("dashboard.upstream.interventions")
TIMEOUT_S = 5.0


@dataclass(frozen=True)
class Answer:
    status: int | None  # the HTTP status; None when the service did not answer
    code: str = ""  # the service's error code ("call_not_live", "agent_busy", …)
    message: str = ""  # the service's words, or why there was no answer
    session: c.MonitorSession | None = None
    agent: c.Agent | None = None
    session_id: str = ""  # a 409 already_monitored names the session that exists

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300

    @property
    def not_offered(self) -> bool:
        """404/405 on the group's path: a service without interventions."""
        return self.status in (404, 405) and self.code in ("", "not_found", "method_not_allowed")


async def start_monitor(
    rest: RestClient, call_id: str, mode: str, supervisor_id: str, name: str, dial: str
) -> Answer:
    body = {"mode": mode, "supervisor_id": supervisor_id, "supervisor_name": name, "dial": dial}
    return await _ask(rest, "POST", f"/calls/{_q(call_id)}/monitor", body, c.parse_session)


async def switch_monitor(rest: RestClient, call_id: str, session_id: str, mode: str) -> Answer:
    path = f"/calls/{_q(call_id)}/monitor/{_q(session_id)}"
    return await _ask(rest, "PATCH", path, {"mode": mode}, c.parse_session)


async def end_monitor(rest: RestClient, call_id: str, session_id: str) -> Answer:
    return await _ask(rest, "DELETE", f"/calls/{_q(call_id)}/monitor/{_q(session_id)}", None, None)


async def set_agent_state(
    rest: RestClient, agent_id: str, status: str, reason: str, requested_by: str
) -> Answer:
    body = {"status": status, "requestedBy": requested_by}
    if reason:
        body["reason"] = reason
    return await _ask(rest, "PATCH", f"/agent-status/{_q(agent_id)}", body, c.parse_agent_rest)


async def _ask(rest, method, path, body, parse) -> Answer:
    endpoint = f"{method} {path}"
    try:
        r = await rest.once(method, path, json=body, timeout=TIMEOUT_S)
    except httpx.TimeoutException:
        return Answer(None, "timeout", f"no answer within {TIMEOUT_S:g} s")
    except (httpx.TransportError, UpstreamError) as exc:  # UpstreamError: signing in failed
        return Answer(None, "unreachable", str(exc) or type(exc).__name__)
    data = _body(r)
    if r.status_code >= 300:
        code = str(data.get("error") or "")[:80]
        message = str(data.get("message") or "")[:300]
        session_id = data.get("session_id")
        return Answer(
            r.status_code,
            code,
            message,
            session_id=session_id if isinstance(session_id, str) else "",
        )
    if parse is None:
        return Answer(r.status_code)
    try:
        parsed = parse(data)
    except ContractError as exc:
        log.warning("%s answered %d with a body we cannot read: %s", endpoint, r.status_code, exc)
        return Answer(r.status_code, "unreadable", "an answer we could not read")
    if isinstance(parsed, c.Agent):
        return Answer(r.status_code, agent=parsed)
    return Answer(r.status_code, session=parsed)


def _body(r: httpx.Response) -> dict:
    try:
        data = r.json()
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _q(part: str) -> str:
    return quote(part, safe="")
