"""The realtime bridge: the service's Socket.IO feed, kept honest.

python-socketio's AsyncClient does not reconnect after the server disconnects it, so an
outer loop supervises it: connect (the token comes from a callable, fresh on every try),
join the organisation's room, reload the state over REST, apply the events that arrived
meanwhile on top, then follow the feed until it ends; back off with jitter and go again.
A `seq` gap triggers the same reload. One bad event is logged and skipped, never fatal.
"""

import asyncio
import logging
import random
import time
from typing import Protocol

import socketio

from dashboard.shared import metrics
from dashboard.shared.aio import pause

from . import contract as c
from .auth import AuthSession
from .errors import AuthError, ConfigError, ContractError
from .feed_client import FeedClient
from .rest import RestClient

log = logging.getLogger("dashboard.upstream.realtime")
# Reconnects back off with jitter up to this, however long the outage: a supervisor sees
# "disconnected" until the next try, so the dashboard is back within a try and a reload of
# the service answering again. One client per organisation: about one try a second.
RECONNECT_CAP_S = 1.5


class DeadToken(ConnectionError):
    """The service refused the socket's token (it restarted, or revoked it): renewed, the
    next try goes at once."""


class Sink(Protocol):
    """Where the bridge delivers what it learns (the live feed)."""

    def snapshot(self, agents: list[c.Agent], calls: list[c.Call]) -> None: ...

    def event(self, event: c.Event) -> None: ...

    def status(self, state: str, reason: str = "") -> None: ...


class RateLimitedLog:
    """Logs a bad input once per kind per minute, with a count of those it held back."""

    def __init__(self, period: float = 60.0):
        self.period = period
        self.last: dict[str, float] = {}
        self.held: dict[str, int] = {}

    def warn(self, kind: str, message: str, *args):
        now = time.monotonic()
        if now - self.last.get(kind, -self.period) >= self.period:
            held = self.held.pop(kind, 0)
            suffix = f" ({held} more like it held back)" if held else ""
            log.warning(message + suffix, *args)
            self.last[kind] = now
        else:
            self.held[kind] = self.held.get(kind, 0) + 1


class Bridge:
    def __init__(
        self,
        url: str,
        session: AuthSession,
        rest: RestClient,
        sink: Sink,
        *,
        max_backoff: float = RECONNECT_CAP_S,
        config_backoff: float = 60.0,
        on_notice=None,
    ):
        self.url = url
        self.session = session
        self.rest = rest
        self.sink = sink
        self.on_notice = on_notice  # called with each NOTICE_EVENTS event, not the sink
        self.max_backoff = max_backoff
        self.config_backoff = config_backoff
        self.joined = False
        self.live = False  # this session was joined and loaded
        self.last_seq: int | None = None
        self.counters = {
            "events": 0,
            "foreign": 0,
            "malformed": 0,
            "gaps": 0,
            "resyncs": 0,
            "connects": 0,
        }
        self._buffer: list[c.Event] | None = None  # events held while a reload runs
        self._resync_task: asyncio.Task | None = None
        self._ended: asyncio.Event | None = None
        self._bad = RateLimitedLog()

    # ---- The supervising loop ----------------------------------------------------------------
    async def run(self, stop: asyncio.Event):
        fresh = asyncio.ensure_future(self.session.keep_fresh(stop))
        try:
            await self._supervise(stop)
        finally:
            fresh.cancel()

    async def _supervise(self, stop: asyncio.Event):
        delay = 0.5
        retried = False  # a dead token's one try at once
        while not stop.is_set():
            wait = None
            self.live = False
            try:
                await self._follow(stop)
            except DeadToken as exc:
                self.sink.status("disconnected", str(exc))
                if not retried:
                    retried = True
                    continue
            except (ConfigError, AuthError) as exc:
                permanent = isinstance(exc, ConfigError) or exc.permanent
                self.sink.status("config_error" if permanent else "disconnected", str(exc))
                wait = self.config_backoff if permanent else None
            except Exception as exc:  # the feed must outlive anything one session throws
                log.warning("realtime session ended: %s: %s", type(exc).__name__, exc)
                self.sink.status("disconnected", f"{type(exc).__name__}: {exc}")
            self.joined = False
            if self.live:  # the session got through: a new outage backs off from the start
                delay, retried = 0.5, False
            wait = wait or random.uniform(delay / 2, delay)
            delay = min(delay * 2, self.max_backoff)
            await pause(stop, wait)

    async def _auth(self):
        return {"token": await self.session.token()}

    async def _follow(self, stop: asyncio.Event):
        client = FeedClient(reconnection=False)
        ended = self._ended = asyncio.Event()
        client.on("disconnect", lambda *args: ended.set())
        for kind in (*c.REALTIME_EVENTS, *c.NOTICE_EVENTS):
            client.on(kind, self._handler(kind))
        self.sink.status("connecting", "")
        refusals = []
        client.on("connect_error", lambda data=None: refusals.append(data))
        await self.session.token()  # sign-in errors surface here, as themselves
        try:
            try:
                await client.connect(
                    self.url,
                    auth=self._auth,
                    transports=["websocket"],
                    socketio_path="socket.io",
                    wait_timeout=10,
                )
            except socketio.exceptions.ConnectionError:
                said = refusals[-1] if refusals else None
                if isinstance(said, dict) and said.get("message") == "unauthorized":
                    await self.session.invalidate(await self.session.token())
                    raise DeadToken("the service refused the token; renewing it") from None
                raise ConnectionError(
                    f"the service refused the realtime connection: {said}"
                ) from None
            self.counters["connects"] += 1
            metrics.UPSTREAM_CONNECTS.inc()
            org = self.session.organization_id
            ack = await client.call("join", {"room": f"org:{org}"}, timeout=10)
            if not (isinstance(ack, dict) and ack.get("ok")):
                reason = ack.get("error") if isinstance(ack, dict) else ack
                raise ConfigError(
                    f"joining room org:{org} was refused ({reason}); check that "
                    "the service user belongs to the organisation"
                )
            self.joined = True
            self.last_seq = None
            await self._resync()
            self.live = True
            self.sink.status("connected", "")
            stop_wait = asyncio.ensure_future(stop.wait())
            end_wait = asyncio.ensure_future(ended.wait())
            await asyncio.wait({stop_wait, end_wait}, return_when=asyncio.FIRST_COMPLETED)
            stop_wait.cancel()
            end_wait.cancel()
            if not stop.is_set():
                raise ConnectionError("the service closed the realtime connection")
        finally:
            self.joined = False
            if self._resync_task:
                self._resync_task.cancel()
            await client.disconnect()
            self.sink.status("disconnected", "stopped" if stop.is_set() else "reconnecting")

    # ---- Events ------------------------------------------------------------------------------
    def _handler(self, kind: str):
        async def handle(data=None, *args):
            try:
                self.receive(kind, data)
            except Exception:  # never let one event end the session
                log.exception("event %s could not be applied; skipped", kind)

        return handle

    def receive(self, kind: str, data) -> None:
        metrics.EVENTS_RECEIVED.labels(kind).inc()
        try:
            event = c.parse_event(kind, data)
        except ContractError as exc:
            self.counters["malformed"] += 1
            self._bad.warn(f"malformed:{kind}", "malformed %s event skipped: %s", kind, exc)
            return
        if event.organization_id != self.session.organization_id:
            self.counters["foreign"] += 1
            self._bad.warn("foreign", "event of another organisation dropped (%s)", kind)
            return
        if self._buffer is not None:
            self._buffer.append(event)
            return
        if self.last_seq is not None and event.seq <= self.last_seq:
            return  # already applied
        if self.last_seq is not None and event.seq != self.last_seq + 1:
            self.counters["gaps"] += 1
            log.info("seq gap: %d after %d; reloading state", event.seq, self.last_seq)
            self._buffer = [event]
            self._resync_task = asyncio.ensure_future(self._resync(buffer_started=True))
            self._resync_task.add_done_callback(self._resync_done)
            return
        self._apply(event)

    def _apply(self, event: c.Event):
        self.last_seq = event.seq
        self.counters["events"] += 1
        metrics.event_applied(event.kind, event.emitted_at)
        if isinstance(event.body, c.Notice):
            if self.on_notice:
                self.on_notice(event)
            return
        self.sink.event(event)

    def _resync_done(self, task: asyncio.Task):
        """A reload after a gap that failed leaves the state unknown: end the session, so the
        outer loop reconnects and reloads."""
        if not task.cancelled() and task.exception() and self._ended:
            log.warning("reload after a seq gap failed: %s", task.exception())
            self._ended.set()

    async def _resync(self, buffer_started=False):
        """Reload agents and calls over REST, then apply what arrived meanwhile on top."""
        if not buffer_started:
            self._buffer = []
        try:
            agents, calls = await asyncio.gather(self.rest.agents(), self.rest.active_calls())
            self.counters["resyncs"] += 1
            self.sink.snapshot(agents, calls)
        finally:
            held, self._buffer = self._buffer or [], None
            self.last_seq = None
            for event in sorted(held, key=lambda e: e.seq):
                if self.last_seq is None or event.seq > self.last_seq:
                    self._apply(event)
