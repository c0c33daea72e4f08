"""The simulated tenant as one ASGI app: auth provider, REST under /api, Socket.IO, control.

It implements `shared/upstream-contract.md`, including its failures, and nothing of the
dashboard: the two talk over sockets only.
"""

import asyncio
import hmac
import inspect
import io
import json
import logging
import math
import random
import secrets
import statistics
import time
import wave
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import parse_qs
from zoneinfo import ZoneInfo

import socketio

from . import history, interventions, shapes
from .inbound import Inbound
from .model import ContactCentre, iso
from .tenants import ORG_A, ORG_B, TokenStore, make_users
from .webhooks import EVENTS, Deliveries

log = logging.getLogger("simulator")
STEP_S = 0.1  # real seconds per model step
MEDIA_PATH = "/media/recordings/"
MEDIA_TTL_S = 300  # a recording's signed address works this long


@dataclass
class Options:
    agents: int = 40
    teams: int = 0  # organisation A's teams (0: the four named ones)
    seed: int = 1
    speed: float = 1.0
    events_per_second: float = 0.0
    token_ttl: int = 3600
    anon_key: str = "sim-anon-key"
    password: str = "sim-password"
    emails: dict = field(
        default_factory=lambda: {
            "a": "svc-a@sim.local",
            "b": "svc-b@sim.local",
            "agent": "agent-a@sim.local",
            "mfa": "mfa-a@sim.local",
        }
    )
    webhook_url: str = ""
    webhook_secret: str = ""
    faults: bool = False
    without: dict = field(default_factory=dict)  # outbound group -> 404 or 405
    zone: str = "UTC"  # the organisation's zone: its days and busy hours
    history_days: int = history.KEEP_DAYS  # days of past before the start (0: none)
    history_shape: shapes.Shape = shapes.NONE  # a known shape of the past, for tests


class Reply(Exception):
    """Raised by a handler to answer at once with a status and JSON body."""

    def __init__(self, status, body, headers=None):
        super().__init__(status)
        self.status, self.body, self.headers = status, body, headers or {}


def error(status, code, message):
    return Reply(status, {"error": code, "message": message})


class Simulator:
    def __init__(self, options: Options):
        self.o = options
        self.users = make_users(options.emails)
        self.tokens = TokenStore(options.token_ttl)
        start = time.time()
        self.centres = {
            ORG_A: ContactCentre(ORG_A, options.seed, options.agents, start, options.teams),
            ORG_B: ContactCentre(ORG_B, options.seed, 12, start),
        }
        self.inbound = {
            org: Inbound(f"{options.seed}:{org}", centre.queues, centre.agents, start, options.zone)
            for org, centre in self.centres.items()
        }
        shapes.pause_team(options.history_shape, self.centres[ORG_A], ZoneInfo(options.zone), start)
        for centre in self.centres.values():  # the past, today's made now (in bulk)
            shape = options.history_shape if centre is self.centres[ORG_A] else shapes.NONE
            centre.past = history.History(
                centre, options.seed, options.zone, start, options.history_days, shape
            )
            centre.past.day(centre.past.start_day)
        for org, centre in self.centres.items():  # today's queue calls before the start
            self.inbound[org].morning(centre.past.day(centre.past.start_day).calls, start)
        self.seq = {ORG_A: 0, ORG_B: 0}
        self.deliveries = Deliveries()
        if options.webhook_url and options.webhook_secret:
            self.deliveries.create(
                ORG_A, "dashboard", options.webhook_url, EVENTS, {}, options.webhook_secret
            )
        self.sio = socketio.AsyncServer(async_mode="asgi", cors_allowed_origins="*")
        self.sio.on("connect", self.on_connect)
        self.sio.on("join", self.on_join)
        self.asgi = socketio.ASGIApp(self.sio, other_asgi_app=self.http)
        self.paused = False
        self.skip_next = False
        self.until = {
            "refuse_sockets": 0.0,
            "rest_errors": 0.0,
            "auth_down": 0.0,
            "rest_delay": 0.0,
        }
        self.rest_error = (500, 0)
        self.rest_delay = 0.0
        self.history_delay = (0.0, 0.0, None)  # seconds, until when, only before when
        self.missing: dict[str, tuple[int, float]] = {}  # API path's first part -> (status, until)
        self.media_key = secrets.token_bytes(32)  # signs recordings' addresses
        self.recordings = {"asked": 0, "served": 0, "refused": 0}
        self.sockets = 0
        self.emitted = 0
        self.lags: list[float] = []
        self.rate_window: list[float] = []
        self.floor = interventions.FloorControl(self)

    # ---- Events ---------------------------------------------------------------------------
    async def send(self, org: str, kind: str, payload: dict, room_org: str | None = None):
        """Stamp `organization_id`, `seq`, `emitted_at` and emit to the organisation's room."""
        self.seq[org] += 2 if self.skip_next and org == ORG_A else 1
        if org == ORG_A:
            self.skip_next = False
        data = {
            **payload,
            "organization_id": org,
            "seq": self.seq[org],
            "emitted_at": iso(time.time()),
        }
        await self.sio.emit(kind, data, room=f"org:{room_org or org}")
        agent_id = payload.get("agent_id")
        if kind == "agent.status" and isinstance(agent_id, str):
            await self.sio.emit(kind, data, room=f"agent:{agent_id}")
        self.emitted += 1
        if kind == "call.ended":
            await self.floor.call_ended(payload["call_id"])

    async def deliver(self, org: str, records):
        centre = self.centres[org]
        ids = []
        for event, data in records:
            centre.record(event, data)
            ids += self.deliveries.emit(org, event, data)
        return ids

    async def run_model(self):
        """Fixed simulated steps on a real-time schedule (deterministic for a seed)."""
        step = 0
        started = time.monotonic()
        while True:
            step += 1
            delay = started + step * STEP_S - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            if self.paused:
                continue
            for org, centre in self.centres.items():
                if org == ORG_A and self.o.events_per_second:
                    continue
                events, records = centre.step(STEP_S * self.o.speed)
                events += self.inbound[org].step(centre.now, STEP_S * self.o.speed, events)
                for kind, payload in events:
                    await self.send(org, kind, payload)
                await self.deliver(org, records)

    async def run_load(self):
        """Load mode: exactly N events per second for organisation A, on a fixed schedule."""
        rate, started, n = 0.0, 0.0, 0
        centre = self.centres[ORG_A]
        rng = random.Random(self.o.seed)
        agents = list(centre.agents.values())
        cycle = {
            "available": "ringing",
            "ringing": "on_call",
            "on_call": "wrap_up",
            "wrap_up": "available",
            "paused": "available",
            "offline": "available",
        }
        while True:
            if self.paused:
                rate = 0.0  # resuming starts a new schedule: no catching up on the pause
                await asyncio.sleep(STEP_S)
                continue
            if rate != self.o.events_per_second:  # started, resumed or the `rate` control
                rate, started, n = self.o.events_per_second, time.monotonic(), 0
                self.lags.clear()  # the lag figures describe the current schedule
            due = started + n / rate
            now = time.monotonic()
            if due > now:
                await asyncio.sleep(due - now)
                continue
            self.lags.append((now - due) * 1000)
            if len(self.lags) > 20000:
                del self.lags[:10000]
            agent = agents[rng.randrange(len(agents))]
            centre.now = time.time()
            kind, payload = centre.set_status(agent, cycle.get(agent.status, "available"))
            await self.send(ORG_A, kind, payload)
            self.rate_window.append(now)
            n += 1

    def stats(self):
        now = time.monotonic()
        self.rate_window = [t for t in self.rate_window if t > now - 5]
        lags = sorted(self.lags[-5000:]) or [0.0]
        return {
            "org_a": ORG_A,
            "org_b": ORG_B,
            "seq": self.seq,
            "emitted": self.emitted,
            "emit_rate": round(len(self.rate_window) / 5, 1),
            "lag_ms": {
                "p50": round(statistics.median(lags), 2),
                "p99": round(lags[int(0.99 * (len(lags) - 1))], 2),
                "max": round(lags[-1], 2),
            },
            "sockets": self.sockets,
            "deliveries": self.deliveries.attempts,
            "recordings": self.recordings,
            **self.ended_calls(),
        }

    def ended_calls(self):
        """Organisation A's calls ended so far, all and AI-handled (a test's truth)."""
        ended = [x for x in self.centres[ORG_A].history.values() if x.ended]
        return {"calls_ended": len(ended), "ai_calls_ended": sum(x.ai_handled for x in ended)}

    # ---- Socket.IO --------------------------------------------------------------------------
    async def on_connect(self, sid, environ, auth):
        if time.time() < self.until["refuse_sockets"]:
            raise socketio.exceptions.ConnectionRefusedError("unavailable")
        token = auth.get("token") if isinstance(auth, dict) else None
        user = self.tokens.user_for(token)
        if user is None:
            raise socketio.exceptions.ConnectionRefusedError("unauthorized")
        await self.sio.save_session(sid, {"org": user.organization_id})
        self.sockets += 1

    async def on_join(self, sid, data):
        session = await self.sio.get_session(sid)
        room = data.get("room") if isinstance(data, dict) else None
        org = session["org"]
        allowed = room == f"org:{org}" or (
            isinstance(room, str)
            and room.startswith("agent:")
            and room[6:] in self.centres[org].agents
        )
        if not allowed:
            return {"ok": False, "error": "forbidden"}
        await self.sio.enter_room(sid, room)
        return {"ok": True}

    # ---- HTTP -------------------------------------------------------------------------------
    async def http(self, scope, receive, send):
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        query = {k: v[0] for k, v in parse_qs(scope["query_string"].decode()).items()}
        try:
            status, payload, extra = await self.route(
                scope["method"], scope["path"], query, headers, body
            )
        except Reply as r:
            status, payload, extra = r.status, r.body, r.headers
        except Exception:
            log.exception("simulator handler failed")
            status, payload, extra = 500, {"error": "internal", "message": "simulator error"}, {}
        if isinstance(payload, bytes):  # media: its content type is in `extra`
            raw, out = payload, []
        else:
            raw, out = json.dumps(payload).encode(), [(b"content-type", b"application/json")]
        out += [(k.encode(), str(v).encode()) for k, v in extra.items()]
        await send({"type": "http.response.start", "status": status, "headers": out})
        await send({"type": "http.response.body", "body": raw})

    async def route(self, method, path, query, headers, body):
        if path == "/auth/v1/token" and method == "POST":
            return self.token(query, headers, body)
        if path.startswith("/api/"):
            return await self.api(method, path[4:], query, headers, body)
        if path.startswith(MEDIA_PATH) and method == "GET":
            return self.media(path[len(MEDIA_PATH) :], query)
        if path.startswith("/_control/") and self.o.faults:
            return await self.control(method, path[len("/_control/") :], body)
        raise error(404, "not_found", f"No route for {method} {path}")

    # ---- Auth provider ----------------------------------------------------------------------
    def token(self, query, headers, body):
        if time.time() < self.until["auth_down"]:
            raise Reply(503, {"message": "Service Unavailable"})
        if headers.get("apikey") != self.o.anon_key:
            raise Reply(401, {"message": "Invalid API key"})
        data = parse_json(body)
        grant = query.get("grant_type")
        if grant == "password":
            user = self.users.get(str(data.get("email", "")))
            if user is None or data.get("password") != self.o.password:
                raise Reply(
                    400,
                    {"error": "invalid_grant", "error_description": "Invalid login credentials"},
                )
            if user.mfa:
                raise Reply(
                    403, {"error": "mfa_required", "error_description": "MFA enrolment is required"}
                )
        elif grant == "refresh_token":
            user = self.tokens.use_refresh(str(data.get("refresh_token", "")))
            if user is None:
                raise Reply(
                    400, {"error": "invalid_grant", "error_description": "Invalid Refresh Token"}
                )
        else:
            raise Reply(
                400,
                {
                    "error": "unsupported_grant_type",
                    "error_description": "grant_type must be password or refresh_token",
                },
            )
        return 200, self.tokens.issue(user), {}

    # ---- REST -------------------------------------------------------------------------------
    async def api(self, method, path, query, headers, body):
        auth = headers.get("authorization", "")
        user = self.tokens.user_for(auth[7:] if auth.lower().startswith("bearer ") else None)
        if user is None:
            raise error(401, "unauthorized", "Missing, malformed or expired token")
        if time.time() < self.until["rest_delay"]:
            await asyncio.sleep(self.rest_delay)
        if time.time() < self.until["rest_errors"]:
            status, retry_after = self.rest_error
            extra = {"Retry-After": retry_after} if status == 429 and retry_after else {}
            raise Reply(status, {"error": "unavailable", "message": "Injected fault"}, extra)
        parts = [p for p in path.split("/") if p]
        status, until = self.missing.get(parts[0] if parts else "", (0, 0.0))
        if time.time() < until:  # a service without this feature: the whole path is absent
            code = "not_found" if status == 404 else "method_not_allowed"
            raise error(status, code, f"No route for {method} /api{path}")
        if parts and parts[0] in ("webhooks", "tenant") and user.role == "agent":
            raise error(403, "forbidden", "This role cannot reach this endpoint")
        self.outbound_gate(method, path, parts, user.role)
        found = match(API, method, parts)
        if found is None:
            raise error(404, "not_found", f"No route for {method} /api{path}")
        handler, args = found
        centre = self.centres[user.organization_id]
        request = Request(
            user.organization_id, centre, query, body, headers.get("host", ""), user.role
        )
        answer = handler(self, request, *args)
        return await answer if inspect.isawaitable(answer) else answer

    def rest_agents(self, r):
        return 200, [a.rest() for a in r.centre.agents.values()], {}

    def rest_calls(self, r):
        """`status=active` (or nothing): the live calls; `since` and/or `agent_id`: history."""
        since, agent_id = r.query.get("since"), r.query.get("agent_id")
        if history.is_paged(r.query) and r.query.get("status") != "active" and not agent_id:
            return self.paged(history.paged_calls, r)
        if r.query.get("status") == "active" or not (since or agent_id):
            return 200, envelope([call.rest() for call in r.centre.calls.values()]), {}
        try:  # the past too: the newest 200 of every call the service holds
            since_ts = history.parse_time(since)
        except ValueError:
            raise error(400, "invalid_request", "since must be an ISO 8601 time") from None
        now = max(time.time(), r.centre.now) + 1
        since_ts = max(since_ts or now - 86400, now - (history.KEEP_DAYS + 1) * 86400)
        rows = r.centre.past.calls(since_ts, now, agent_id)
        return 200, envelope(rows[::-1][:200]), {}

    def rest_call(self, r, call_id):
        call = r.centre.history.get(call_id)
        row = call.rest() if call else r.centre.past.find(call_id)
        if row is None:
            raise error(404, "not_found", "No such call")
        return 200, row, {}

    def rest_recordings(self, r):
        """An ended call's recording, at an address signed for MEDIA_TTL_S."""
        self.recordings["asked"] += 1
        call_id = r.query.get("call_id", "")
        call = r.centre.history.get(call_id)
        found = call.rest() if call else r.centre.past.find(call_id)  # live, or the past's
        if found is None or not found["recording_id"]:
            return 200, {"data": []}, {}
        expires = int(time.time()) + MEDIA_TTL_S
        rid = found["recording_id"]
        signed = f"expires={expires}&sig={self.sign(rid, expires)}"
        url = f"http://{r.host}{MEDIA_PATH}{rid}.wav?{signed}"
        row = {
            "id": rid,
            "call_id": call_id,
            "duration_s": found["duration_s"],
            "url": url,
            "expires_at": iso(expires),
        }
        return 200, {"data": [row]}, {}

    def sign(self, recording_id: str, expires: int) -> str:
        return hmac.new(self.media_key, f"{recording_id}:{expires}".encode(), "sha256").hexdigest()

    def media(self, name: str, query: dict):
        """A recording's audio at its signed address (no bearer token: the address is the key)."""
        rid, expires = name.removesuffix(".wav"), query.get("expires", "")
        good = expires.isdigit() and hmac.compare_digest(
            self.sign(rid, int(expires)), query.get("sig", "")
        )
        if not good or int(expires) < time.time():
            self.recordings["refused"] += 1
            raise error(403, "forbidden", "This address is wrong or has expired")
        self.recordings["served"] += 1
        return 200, TONE, {"content-type": "audio/wav", "cache-control": "private, no-store"}

    def rest_campaigns(self, r):
        return 200, [campaign.rest() for campaign in r.centre.campaigns.values()], {}

    def rest_campaign(self, r, campaign_id):
        campaign = r.centre.campaigns.get(campaign_id)
        if campaign is None:
            raise error(404, "not_found", "No such campaign")
        return 200, campaign.rest(), {}

    def rest_scorecards(self, r):
        if history.is_paged(r.query):
            return self.paged(history.paged_records, r, "scorecards")
        return 200, envelope(r.since(r.centre.scorecards, "scored_at")), {}

    def rest_templates(self, r):
        return 200, envelope(r.centre.templates), {}

    def rest_checks(self, r):
        if history.is_paged(r.query):
            return self.paged(history.paged_records, r, "checks")
        return 200, envelope(r.since(r.centre.checks, "checked_at")), {}

    def rest_alerts(self, r):
        if history.is_paged(r.query):
            return self.paged(history.paged_records, r, "alerts")
        return 200, envelope(r.since(r.centre.alerts, "created_at")), {}

    def rest_status_history(self, r):
        return self.paged(history.paged_states, r)

    async def paged(self, read, r, *args):
        """A page of the history (contract 6.3); a bad parameter is a 400 with a sentence.
        The days it reads are made first, a step at a time: the live feed goes on meanwhile."""
        now = max(time.time(), r.centre.now)
        delay, delayed_until, before = self.history_delay
        try:
            since, until, _ = history.window({**r.query, "limit": "1"}, now)
            if time.time() < delayed_until and (before is None or since < before):
                await asyncio.sleep(delay)
            evenings = read is history.paged_states  # an agent's evening is offline
            await r.centre.past.prepare(since, until, evenings)
            return 200, read(r.centre.past, *args, r.query, now), {}
        except ValueError as exc:
            raise error(400, "invalid_request", str(exc)) from None

    def rest_ai(self, r):
        return 200, {"enabled": True, "capabilities": ["dialer", "booking", "qa"]}, {}

    def rest_tenant(self, r):
        return 200, {"id": r.org, "name": "Simulated organisation"}, {}

    def rest_deliveries(self, r, hook_id):
        return 200, {"data": self.hook(r.org, hook_id).deliveries}, {}

    def rest_create_webhook(self, r):
        data = parse_json(r.body)
        events = data.get("events")
        name, url = data.get("name"), data.get("url")
        if not isinstance(name, str) or not name or not isinstance(url, str) or not url:
            raise error(422, "invalid_request", "name and url are required")
        if not isinstance(events, list) or not events:
            raise error(422, "invalid_event", "events must be a non-empty list")
        unknown = [e for e in events if e not in EVENTS]
        if unknown:
            raise error(422, "invalid_event", f"Unknown event name(s): {unknown}")
        headers = data.get("headers") or {}
        if not isinstance(headers, dict):
            raise error(422, "invalid_request", "headers must be an object")
        hook = self.deliveries.create(r.org, name, url, events, headers)
        return 201, hook.public(with_secret=True), {}

    def rest_test_webhook(self, r, hook_id):
        hook = self.hook(r.org, hook_id)
        sample = r.centre.business_event(hook.events[0])
        self.deliveries.emit(r.org, hook.events[0], sample, only=hook)
        return 202, {"status": "queued"}, {}

    def rest_replay(self, r, hook_id, delivery_id):
        if not self.deliveries.replay(self.hook(r.org, hook_id), delivery_id):
            raise error(404, "not_found", "No such delivery")
        return 202, {"status": "queued"}, {}

    # ---- Outbound operations -------------------------------------------------------------
    def outbound_gate(self, method, path, parts, role):
        """A group switched off (`--without`) answers for its whole path as a service that
        lacks it would; campaign control needs more than the agent role."""
        group = outbound_group(parts)
        status = self.o.without.get(group)
        if status == 405:
            raise error(405, "method_not_allowed", f"{method} /api{path} is not allowed")
        if status:
            raise error(404, "not_found", f"No route for {method} /api{path}")
        if group == "campaign-control" and role == "agent":
            raise error(403, "forbidden", "This role cannot start or stop campaigns")

    def rest_dialer_queue(self, r):
        return 200, r.centre.outbound.queue_summary(r.centre.now), {}

    def rest_callbacks(self, r):
        before = r.query.get("due_before")
        if before is not None:
            try:
                moment = datetime.fromisoformat(before.replace("Z", "+00:00"))
            except ValueError:
                raise error(400, "invalid_request", "due_before must be an ISO 8601 time") from None
            if moment.tzinfo is None:
                raise error(400, "invalid_request", "due_before needs a time zone")
            before = moment.timestamp()
        rows = r.centre.outbound.callbacks_due_before(before, r.centre.now)
        return 200, envelope(rows), {}

    def rest_pending_bookings(self, r):
        return 200, envelope(r.centre.outbound.pending_bookings()), {}

    def rest_ai_dialer(self, r):
        return 200, r.centre.outbound.ai_dialer(r.centre.calls), {}

    def rest_start_campaign(self, r, campaign_id):
        return self.campaign_action(r, campaign_id, "start")

    def rest_stop_campaign(self, r, campaign_id):
        return self.campaign_action(r, campaign_id, "stop")

    def campaign_action(self, r, campaign_id, action):
        campaign = r.centre.campaigns.get(campaign_id)
        if campaign is None:
            raise error(404, "not_found", "No such campaign")
        if not r.centre.outbound.start_or_stop(campaign, action):
            state = "running" if action == "start" else "stopped"
            raise error(409, "invalid_state", f"Campaign is already {state}")
        return 200, campaign.rest(), {}

    # ---- The inbound side (contract 6.2, inbound.py) --------------------------------------
    def rest_inbound_queues(self, r):
        return 200, envelope([x.rest() for x in self.inbound[r.org].lines.values()]), {}

    def rest_inbound_stats(self, r, queue_id):
        inbound = self.inbound[r.org]
        line = inbound.line(queue_id)
        if line is None:
            raise error(404, "not_found", "No such queue")
        return 200, line.stats(inbound.since(r.query.get("since", "")), r.centre.now), {}

    def rest_schedules(self, r):
        inbound = self.inbound[r.org]
        return 200, [s.rest(r.centre.now) for s in inbound.schedules.values()], {}

    def rest_voicemail(self, r):
        rows = self.inbound[r.org].messages(r.query.get("since", ""), r.query.get("status", ""))
        return 200, envelope(rows), {}

    def rest_voicemail_handled(self, r, message_id):
        if r.role == "agent":
            raise error(403, "forbidden", "This role cannot handle voicemail")
        by = parse_json(r.body).get("handled_by")
        if not isinstance(by, str) or not by.strip():
            raise error(422, "invalid_request", "handled_by is required")
        answer = self.inbound[r.org].handle(message_id, by.strip()[:120])
        if answer is None:
            raise error(404, "not_found", "No such voicemail message")
        return answer[0], answer[1], {}

    # ------------------------------------------------------------------------------------
    def hook(self, org, hook_id):
        hook = self.deliveries.for_org(org, hook_id)
        if hook is None:
            raise error(404, "not_found", "No such webhook")
        return hook

    # ---- Fault and test controls ------------------------------------------------------------
    async def control(self, method, name, body):
        found = match(CONTROLS, method, [name])
        if found is None:
            if match(CONTROLS, "POST", [name]) or match(CONTROLS, "GET", [name]):
                raise error(405, "method_not_allowed", f"{name}: wrong method")
            raise error(404, "not_found", f"No control named {name}")
        handler, _ = found
        answer = await handler(self, parse_json(body))
        return 200, answer or {"ok": True}, {}

    async def control_stats(self, data):
        return self.stats()

    async def control_agents(self, data):
        return [a.rest() for a in self.centres[ORG_A].agents.values()]

    async def control_drop_sockets(self, data):
        for sid in list(self.sio.manager.get_participants("/", None)):
            await self.sio.disconnect(sid[0] if isinstance(sid, tuple) else sid)

    async def control_refuse_sockets(self, data):
        self.until["refuse_sockets"] = time.time() + seconds(data)

    async def control_rest_errors(self, data):
        self.until["rest_errors"] = time.time() + seconds(data)
        self.rest_error = (int(data.get("status", 500)), data.get("retry_after", 1))

    async def control_rest_delay(self, data):
        self.until["rest_delay"] = time.time() + float(data.get("for_s", 10))
        self.rest_delay = seconds(data)

    async def control_history_delay(self, data):
        """Each page of the paged history answers `seconds` late for `for_s`: a client's
        fill that would be over before anyone watched it is still running. With
        `older_than_s`, only the pages of a window starting longer ago than that (the past
        weeks, not today)."""
        older = data.get("older_than_s")
        before = time.time() - float(older) if older is not None else None
        self.history_delay = (seconds(data), time.time() + float(data.get("for_s", 10)), before)

    async def control_auth_down(self, data):
        self.until["auth_down"] = time.time() + seconds(data)

    async def control_revoke_refresh_tokens(self, data):
        self.tokens.revoke_all_refresh()

    async def control_expire_access_tokens(self, data):
        self.tokens.expire_all_access()

    async def control_skip_seq(self, data):
        self.skip_next = True

    async def control_malformed_event(self, data):
        bad = {"agent_id": 12345, "status": ["?"], "since": "not a time"}
        await self.send(ORG_A, "agent.status", bad)

    async def control_foreign_event(self, data):
        agent = next(iter(self.centres[ORG_B].agents.values()))
        kind, payload = agent.event()
        await self.send(ORG_B, kind, payload, room_org=ORG_A)

    async def control_bad_signature_webhook(self, data):
        sample = self.centres[ORG_A].business_event("coaching_alert")
        ids = []
        for hook in list(self.deliveries.hooks.values()):
            if hook.organization_id == ORG_A:
                ids += self.deliveries.emit(
                    ORG_A, "coaching_alert", sample, only=hook, bad_signature=True
                )
        return {"deliveries": ids}

    async def control_agent_status(self, data):
        centre = self.centres[ORG_A]
        agent_id, status = data.get("agent_id"), data.get("status")
        if agent_id not in centre.agents or not isinstance(status, str):
            raise error(400, "bad_request", "agent_id of organisation A and status needed")
        centre.now = time.time()
        for kind, payload in centre.force_status(agent_id, status, data.get("name")):
            await self.send(ORG_A, kind, payload)

    async def control_queue_load(self, data):
        centre = self.centres[ORG_A]
        wanted = data.get("queue")
        queue = next(
            (q for q in centre.queues.values() if wanted in (q.id, q.name)),
            None if wanted else next(iter(centre.queues.values())),
        )
        waiting, longest = data.get("waiting"), data.get("longest_wait_s", 0)
        if queue is None or type(waiting) is not int or waiting < 0 or longest < 0:
            raise error(400, "bad_request", "queue (id or name), waiting >= 0 and longest_wait_s")
        centre.now = time.time()
        for kind, payload in centre.load_queue(queue.id, waiting, longest):
            await self.send(ORG_A, kind, payload)
        return {"queue_id": queue.id, "name": queue.name}

    async def control_webhook(self, data):
        event = data.get("event")
        if event not in EVENTS:
            raise error(400, "bad_request", f"event must be one of {list(EVENTS)}")
        centre = self.centres[ORG_A]
        record = centre.business_event(event, data.get("agent_id"))
        return {"deliveries": await self.deliver(ORG_A, [(event, record)]), "data": record}

    async def control_missing_endpoint(self, data):
        path, status = data.get("path"), data.get("status", 404)
        if not isinstance(path, str) or status not in (404, 405):
            raise error(400, "bad_request", "path (e.g. recordings) and status 404 or 405 needed")
        self.missing[path] = (status, time.time() + seconds(data))

    async def control_rate(self, data):
        rate = data.get("events_per_second")
        if not self.o.events_per_second or type(rate) not in (int, float) or rate <= 0:
            raise error(400, "bad_request", "load mode only; events_per_second > 0 needed")
        self.o.events_per_second = float(rate)

    async def control_inbound(self, data):
        """Organisation A's inbound truth: each queue's plan, state and day, the schedules
        and every voicemail message."""
        return self.inbound[ORG_A].truth()

    async def control_inbound_reset(self, data):
        """Forget today's inbound calls and messages; `hold` (default true) stops the
        model's own callers, abandons and messages, so a test's figures are exact."""
        inbound = self.inbound[ORG_A]
        inbound.reset(bool(data.get("hold", True)))
        for line in inbound.lines.values():
            await self.send(ORG_A, *inbound.stats_event(line))

    async def control_inbound_calls(self, data):
        """Calls that reached a queue now: `calls` [{"wait_s", "outcome": answered|abandoned}]."""
        inbound = self.inbound[ORG_A]
        line, calls = inbound.line(data.get("queue")), data.get("calls")
        good = isinstance(calls, list) and all(
            isinstance(x, dict)
            and x.get("outcome") in ("answered", "abandoned")
            and type(x.get("wait_s")) in (int, float)
            and x["wait_s"] >= 0
            for x in calls
        )
        if line is None or not good:
            raise error(400, "bad_request", "queue (id or name) and calls [{wait_s, outcome}]")
        inbound.add_calls(line, calls)
        await self.send(ORG_A, *inbound.stats_event(line))
        return {"queue_id": line.queue.id, "today": line.stats(inbound.start_of_day(), inbound.now)}

    async def control_inbound_schedule(self, data):
        """Hold a schedule open (`open`: true) or closed (false), or back to its hours (null);
        `holiday`: today's holiday's name (closed all day) or null."""
        inbound = self.inbound[ORG_A]
        schedule = inbound.schedule(data.get("schedule"))
        wanted = data.get("open")
        if schedule is None or wanted not in (True, False, None):
            raise error(400, "bad_request", "schedule (id or name) and open true, false or null")
        schedule.forced, schedule.holiday = wanted, data.get("holiday") or None
        for line in inbound.lines.values():  # its queues report themselves
            if line.schedule is schedule:
                await self.send(ORG_A, *inbound.stats_event(line))
        return schedule.rest(inbound.now)

    async def control_voicemail(self, data):
        """A caller leaves a message on `queue` now (its transcript follows a few seconds
        later); optional caller_name, phone, duration_s, transcript, age_s."""
        inbound = self.inbound[ORG_A]
        line = inbound.line(data.get("queue"))
        if line is None:
            raise error(400, "bad_request", "queue (id or name) needed")
        given = {
            k: data[k]
            for k in ("caller_name", "phone", "duration_s", "transcript", "age_s")
            if k in data
        }
        kind, payload = inbound.leave_message(line, 0, **given)
        await self.send(ORG_A, kind, payload)
        return payload

    async def control_day_figures(self, data):
        """Organisation A's day up to `at` (default now) from its own history: the truth a
        test compares the dashboard's day figures and agents' days with."""
        try:
            at = history.parse_time(data.get("at")) or time.time()
        except ValueError:
            raise error(400, "bad_request", "at must be an ISO 8601 time with a zone") from None
        figures = history.day_figures(self.centres[ORG_A].past, at)
        inbound = self.inbound[ORG_A]
        figures["inbound"] = inbound.service_levels(inbound.start_of_day(at), at)
        return figures

    async def control_pause(self, data):
        self.paused = True

    async def control_resume(self, data):
        self.paused = False


@dataclass
class Request:
    """What a REST handler needs of one request."""

    org: str
    centre: ContactCentre
    query: dict
    body: bytes
    host: str  # as the client addressed us: where the media addresses point
    role: str = ""

    def since(self, rows, stamp):
        """The rows at or after the `since` query parameter (all without one)."""
        since = self.query.get("since", "")
        return [row for row in rows if not since or row[stamp] >= since]


# (method, path): handler; a "*" segment matches any one and is passed to the handler.
API = {
    ("GET", "agent-status"): Simulator.rest_agents,
    ("GET", "agent-status/history"): Simulator.rest_status_history,
    ("GET", "calls"): Simulator.rest_calls,
    ("GET", "calls/*"): Simulator.rest_call,
    ("GET", "recordings"): Simulator.rest_recordings,
    ("GET", "campaigns"): Simulator.rest_campaigns,
    ("GET", "campaigns/*"): Simulator.rest_campaign,
    ("GET", "qa/scorecards"): Simulator.rest_scorecards,
    ("GET", "qa/templates"): Simulator.rest_templates,
    ("GET", "compliance/checks"): Simulator.rest_checks,
    ("GET", "coaching/alerts"): Simulator.rest_alerts,
    ("GET", "ai"): Simulator.rest_ai,
    ("GET", "tenant"): Simulator.rest_tenant,
    ("GET", "webhooks/outbound/*/deliveries"): Simulator.rest_deliveries,
    ("POST", "webhooks/outbound"): Simulator.rest_create_webhook,
    ("POST", "webhooks/outbound/*/test"): Simulator.rest_test_webhook,
    ("POST", "webhooks/outbound/*/deliveries/*/replay"): Simulator.rest_replay,
    # Outbound operations
    ("GET", "dialer-queue/summary"): Simulator.rest_dialer_queue,
    ("GET", "callbacks"): Simulator.rest_callbacks,
    ("GET", "pending-bookings"): Simulator.rest_pending_bookings,
    ("GET", "ai-dialer"): Simulator.rest_ai_dialer,
    ("POST", "campaigns/*/start"): Simulator.rest_start_campaign,
    ("POST", "campaigns/*/stop"): Simulator.rest_stop_campaign,
    **interventions.API,
    # The inbound side (contract 6.2)
    ("GET", "inbound/queues"): Simulator.rest_inbound_queues,
    ("GET", "inbound/queues/*/stats"): Simulator.rest_inbound_stats,
    ("GET", "schedules"): Simulator.rest_schedules,
    ("GET", "voicemail-messages"): Simulator.rest_voicemail,
    ("POST", "voicemail-messages/*/handled"): Simulator.rest_voicemail_handled,
}
OUTBOUND_GROUPS = ("dialer-queue", "callbacks", "pending-bookings", "ai-dialer", "campaign-control")


def outbound_group(parts: list[str]) -> str | None:
    """Which optional group of contract section 5 a request's path belongs to."""
    if len(parts) == 3 and parts[0] == "campaigns" and parts[2] in ("start", "stop"):
        return "campaign-control"
    return parts[0] if parts and parts[0] in OUTBOUND_GROUPS else None


CONTROLS = {
    ("GET", "stats"): Simulator.control_stats,
    ("GET", "agents"): Simulator.control_agents,
    ("GET", "inbound"): Simulator.control_inbound,
    **{
        ("POST", name.removeprefix("control_").replace("_", "-")): handler
        for name, handler in vars(Simulator).items()
        if name.startswith("control_")
        and name not in ("control_stats", "control_agents", "control_inbound")
    },
    **interventions.CONTROLS,
}


def match(table: dict, method: str, parts: list[str]):
    """(handler, the parts the "*" segments matched) of the first route that fits, or None."""
    for (verb, pattern), handler in table.items():
        segments = pattern.split("/")
        if verb != method or len(segments) != len(parts):
            continue
        if all(s in ("*", p) for s, p in zip(segments, parts, strict=True)):
            return handler, [p for s, p in zip(segments, parts, strict=True) if s == "*"]
    return None


def tone(seconds: float = 2.0, rate: int = 8000) -> bytes:
    """A small WAV made in memory: a quiet 440 Hz tone, what a recording sounds like here."""
    frames = b"".join(
        int(6000 * math.sin(2 * math.pi * 440 * n / rate)).to_bytes(2, "little", signed=True)
        for n in range(int(seconds * rate))
    )
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(frames)
    return out.getvalue()


TONE = tone()


def seconds(data: dict) -> float:
    return float(data.get("seconds", 10))


def envelope(rows):
    return {"data": rows, "count": len(rows)}


def parse_json(body: bytes) -> dict:
    if not body:
        return {}
    try:
        data = json.loads(body)
    except ValueError:
        raise error(400, "bad_request", "Body is not JSON") from None
    if not isinstance(data, dict):
        raise error(400, "bad_request", "Body must be a JSON object")
    return data
