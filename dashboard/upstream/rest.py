"""The service's REST API: one typed method per contract row, and one careful request path.

Every call carries the bearer token; connect errors, timeouts, 5xx and 429 are retried with
jittered backoff (429 honours Retry-After); a 401 renews the token and retries once; a 403
names the endpoint and the role; a 404 is "absent" (None); a 405 means the service lacks
the path (`NotOffered`), as does a 404 on a list that is always there when offered; a 409
is a refusal in the current state (`Conflict`).
"""

import asyncio
import logging
import random
from datetime import datetime
from urllib.parse import quote

import httpx

from dashboard.shared import metrics

from . import contract as c
from .auth import AuthSession
from .errors import Conflict, ContractError, Forbidden, NotOffered, UpstreamError

log = logging.getLogger("dashboard.upstream.rest")


class RestClient:
    def __init__(
        self,
        base_url: str,
        session: AuthSession,
        client: httpx.AsyncClient,
        *,
        attempts: int = 4,
        max_backoff: float = 8.0,
        timeout: float = 10.0,
    ):
        self._base = base_url.rstrip("/")
        self._session = self.session = session
        self._client = client
        self._attempts = attempts
        self._max_backoff = max_backoff
        self._timeout = timeout

    async def request(self, method: str, path: str, *, params=None, json=None):
        """The decoded JSON body, or None for 404 (absent)."""
        endpoint = f"{method} {path}"
        renewed = False
        delay = 0.25
        last = ""
        for attempt in range(1, self._attempts + 1):
            asked = 0.0  # what a 429's Retry-After asks us to wait, at least
            token = await self._session.token()
            try:
                r = await self._client.request(
                    method,
                    self._base + path,
                    params=params,
                    json=json,
                    timeout=self._timeout,
                    headers={"Authorization": f"Bearer {token}"},
                )
            except httpx.TimeoutException:
                last = f"no answer within {self._timeout:g} s"
                metrics.rest_answered(method, path, failure="timeout")
            except httpx.TransportError as exc:
                last = f"{type(exc).__name__}"
                metrics.rest_answered(method, path, failure="error")
            else:
                metrics.rest_answered(method, path, r)
                if r.status_code == 401 and not renewed:
                    renewed = True
                    await self._session.invalidate(token)
                    continue
                if r.status_code == 403:
                    raise Forbidden(endpoint, self._session.role)
                if r.status_code == 404:
                    return None
                if r.status_code == 405:
                    raise NotOffered(endpoint, 405)
                if r.status_code == 409:
                    raise Conflict(endpoint, *_error_fields(r))
                if r.status_code < 400:
                    return _json(r, endpoint)
                if r.status_code != 429 and r.status_code < 500:
                    raise UpstreamError(f"{endpoint} answered {r.status_code}: {_message(r)}")
                last = f"HTTP {r.status_code}"
                if r.status_code == 429:
                    asked = _retry_after(r)
            if attempt < self._attempts:
                log.info("%s failed (%s), attempt %d; retrying", endpoint, last, attempt)
                await asyncio.sleep(max(asked, random.uniform(delay / 2, delay)))
                delay = min(delay * 2, self._max_backoff)
        raise UpstreamError(f"{endpoint} failed after {self._attempts} attempts: {last}")

    async def _get(self, path, **params):
        return await self.request("GET", path, params={k: v for k, v in params.items() if v})

    # ---- The contract's rows ------------------------------------------------------------------
    async def agents(self) -> list[c.Agent]:
        return c.agents_from(await self._get("/agent-status"))

    async def active_calls(self) -> list[c.Call]:
        return c.calls_from(await self._get("/calls", status="active"))

    async def campaigns(self) -> list[c.Campaign]:
        return c.campaigns_from(await self._get("/campaigns"))

    async def campaign(self, campaign_id: str) -> c.Campaign | None:
        body = await self._get(f"/campaigns/{campaign_id}")
        return None if body is None else c.parse_campaign(body)

    async def scorecards(self, since: datetime | None = None) -> list[c.Scorecard]:
        return c.scorecards_from(await self._get("/qa/scorecards", since=_iso(since)))

    async def templates(self) -> list[c.Template]:
        return c.templates_from(await self._get("/qa/templates"))

    async def compliance_checks(self, since: datetime | None = None) -> list[c.ComplianceCheck]:
        return c.checks_from(await self._get("/compliance/checks", since=_iso(since)))

    async def coaching_alerts(self, since: datetime | None = None) -> list[c.CoachingAlert]:
        return c.alerts_from(await self._get("/coaching/alerts", since=_iso(since)))

    async def ai_status(self) -> c.AiStatus:
        return c.parse_ai(await self._get("/ai"))

    # ---- Call evidence (contract 5) -------------------------------------------------------------
    async def call(self, call_id: str) -> c.Call | None:
        """One call, live or ended; None when absent or another organisation's."""
        body = await self._optional("call records", f"/calls/{quote(call_id, safe='')}")
        return None if body is None else c.parse_call(body)

    async def calls(self, *, since: datetime, agent_id: str | None = None) -> list[c.Call]:
        """Calls started since `since` (one agent's, or all), newest first, at most 200."""
        body = await self._optional("call history", "/calls", agent_id=agent_id, since=_iso(since))
        return c.calls_from(_listed(body, "GET /calls", "call history"))

    async def recordings(self, call_id: str) -> list[c.Recording]:
        """A call's recordings, each with a short-lived address (none: an empty list)."""
        body = await self._optional("recordings", "/recordings", call_id=call_id)
        return c.recordings_from(_listed(body, "GET /recordings", "recordings"))

    async def _optional(self, feature: str, path: str, **params):
        """A path of a feature the service may lack (contract 5): a 405 says it does."""
        try:
            return await self._get(path, **params)
        except NotOffered as lacking:
            raise NotOffered(lacking.endpoint, lacking.status, feature) from None

    async def day_calls(
        self, *, since: datetime, agent_ids=()
    ) -> tuple[list[c.Call], datetime | None]:
        """Every call since `since` the call history gives, and the time before which the
        answer may still lack calls (None: complete). The list holds the newest 200 calls
        only: when it is full, each agent's own list is read too (four at a time), which
        finds the agents' older calls; older AI calls (no agent) stay out of reach."""
        calls = await self.calls(since=since)
        if len(calls) < c.CALL_LIST_CAP:
            return calls, None
        found = {x.call_id: x for x in calls}
        partial = _oldest(calls, since)
        gate = asyncio.Semaphore(4)

        async def agents_calls(agent_id):
            async with gate:
                return await self.calls(since=since, agent_id=agent_id)

        for rows in await asyncio.gather(*map(agents_calls, agent_ids)):
            for x in rows:
                found.setdefault(x.call_id, x)
            if len(rows) >= c.CALL_LIST_CAP:
                partial = max(partial, _oldest(rows, since))
        return list(found.values()), partial

    async def create_webhook(
        self, name: str, url: str, events=c.WEBHOOK_EVENTS, headers: dict | None = None
    ) -> c.Webhook:
        body = {"name": name, "url": url, "events": list(events), "headers": headers or {}}
        return c.parse_webhook(await self.request("POST", "/webhooks/outbound", json=body))

    async def test_webhook(self, webhook_id: str) -> bool:
        return await self.request("POST", f"/webhooks/outbound/{webhook_id}/test") is not None

    async def deliveries(self, webhook_id: str) -> list[c.Delivery] | None:
        body = await self._get(f"/webhooks/outbound/{webhook_id}/deliveries")
        return None if body is None else c.deliveries_from(body)

    async def replay(self, webhook_id: str, delivery_id: str) -> bool:
        path = f"/webhooks/outbound/{webhook_id}/deliveries/{delivery_id}/replay"
        return await self.request("POST", path) is not None

    # ---- Outbound operations: groups a service may not offer --------------------------------
    async def _offered(self, path, **params):
        """A GET on a path of an optional group: a 404 there means the whole group is absent."""
        body = await self._get(path, **params)
        if body is None:
            raise NotOffered(f"GET {path}", 404)
        return body

    async def dialer_queue(self) -> list[c.DialerQueue]:
        return c.dialer_queue_from(await self._offered("/dialer-queue/summary"))

    async def callbacks(self, due_before: datetime) -> list[c.Callback]:
        return c.callbacks_from(await self._offered("/callbacks", due_before=_iso(due_before)))

    async def pending_bookings(self) -> list[c.PendingBooking]:
        return c.pending_bookings_from(await self._offered("/pending-bookings"))

    async def ai_dialer(self) -> list[c.AiDialerCampaign]:
        return c.ai_dialer_from(await self._offered("/ai-dialer"))

    async def start_campaign(self, campaign_id: str) -> c.Campaign | None:
        """The campaign as the service has it now; None on a 404 (no such campaign, or a
        service without starting and stopping: the contract cannot tell them apart)."""
        return await self._campaign_action(campaign_id, "start")

    async def stop_campaign(self, campaign_id: str) -> c.Campaign | None:
        return await self._campaign_action(campaign_id, "stop")

    async def _campaign_action(self, campaign_id: str, action: str) -> c.Campaign | None:
        body = await self.request("POST", f"/campaigns/{quote(campaign_id, safe='')}/{action}")
        return None if body is None else c.parse_campaign(body)

    async def once(self, method: str, path: str, *, json=None, timeout: float) -> httpx.Response:
        """One request, never retried (it may ring a phone: a retry could ring it twice);
        a 401 renews the token and asks once more. Timeouts and transport errors raise."""
        token = await self._session.token()
        for renewed in (False, True):
            r = await self._client.request(
                method,
                self._base + path,
                json=json,
                timeout=timeout,
                headers={"Authorization": f"Bearer {token}"},
            )
            if r.status_code != 401 or renewed:
                return r
            await self._session.invalidate(token)
            token = await self._session.token()
        return r


def _error_fields(r: httpx.Response) -> tuple[str, str]:
    """(code, message) of an error body `{"error", "message"}`."""
    try:
        body = r.json()
    except ValueError:
        return "", r.text[:200]
    if not isinstance(body, dict):
        return "", str(body)[:200]
    return str(body.get("error") or "")[:80], str(body.get("message") or "")[:300]


def _listed(body, endpoint: str, feature: str):
    """A list endpoint answers even when empty: a 404 (None) is a path the service lacks."""
    if body is None:
        raise NotOffered(endpoint, 404, feature)
    return body


def _oldest(calls: list[c.Call], since: datetime) -> datetime:
    """When the oldest of `calls` started: the list is complete from there on."""
    return min((x.started_at for x in calls if x.started_at), default=since)


def _iso(when: datetime | None) -> str | None:
    return when.isoformat() if when else None


def _json(r: httpx.Response, endpoint: str):
    try:
        return r.json()
    except ValueError:
        raise ContractError(f"{endpoint} did not answer JSON") from None


def _message(r: httpx.Response) -> str:
    try:
        body = r.json()
    except ValueError:
        return r.text[:200]
    if isinstance(body, dict):
        return str(body.get("message") or body.get("error") or body)[:300]
    return str(body)[:300]


def _retry_after(r: httpx.Response) -> float:
    try:
        return min(max(float(r.headers.get("Retry-After", "1")), 0.1), 30.0)
    except ValueError:
        return 1.0


def from_settings(
    client: httpx.AsyncClient, *, sign_in_attempts: int | None = None, **options
) -> RestClient:
    """The configured service user's REST client (its session is `.session`); `options`
    as RestClient's (attempts, timeout), `sign_in_attempts` as AuthSession's `attempts`."""
    from django.conf import settings

    from .webhooks import remember_organization

    session = AuthSession(
        settings.UPSTREAM_AUTH_URL,
        settings.UPSTREAM_ANON_KEY,
        settings.UPSTREAM_EMAIL,
        settings.UPSTREAM_PASSWORD,
        client,
        on_organization=remember_organization,
        attempts=sign_in_attempts,
    )
    options.setdefault("timeout", settings.UPSTREAM_REST_TIMEOUT_S)
    return RestClient(settings.UPSTREAM_BASE_URL, session, client, **options)
