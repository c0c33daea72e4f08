"""The chat webhook: one signed JSON POST per alert transition (raised, escalated, cleared).

`Notifier.send` only puts the transition on an asyncio queue and returns: the engine's path
never waits for a chat tool. `Notifier.run` drains the queue, each delivery in a task of its
own (at most `CONCURRENCY` at once), retried with backoff (1, 2, 4, 8, 16 s) when the
receiver does not answer 2xx in time; every delivery and its attempts are logged in
`AlertDelivery` (the Managers' delivery log), written in a worker thread.

The body is JSON; its signature is `X-Dashboard-Signature: sha256=<hex HMAC-SHA256 of the
raw body with ALERT_WEBHOOK_SECRET>` (docs/alerts.md has a verification snippet).
"""

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime

import httpx
from django.conf import settings

from dashboard.live.handshake import in_thread
from dashboard.shared import metrics

from .models import AlertDelivery

log = logging.getLogger("dashboard.alerts.notify")
SIGNATURE_HEADER = "X-Dashboard-Signature"
CONCURRENCY = 4
BACKOFF_S = 1.0  # doubled after each failed attempt


def sign(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


@dataclass
class Outgoing:
    alert_id: int
    transition: str
    payload: dict
    due: datetime  # when the transition fell due: the latency is measured from it
    body: bytes = field(default=b"", repr=False)


class Notifier:
    def __init__(
        self,
        url: str | None = None,
        secret: str | None = None,
        *,
        attempts: int | None = None,
        timeout: float | None = None,
        backoff: float = BACKOFF_S,
    ):
        self.url = settings.ALERT_WEBHOOK_URL if url is None else url
        self.secret = settings.ALERT_WEBHOOK_SECRET if secret is None else secret
        self.attempts = attempts or settings.ALERT_WEBHOOK_ATTEMPTS
        self.timeout = timeout or settings.ALERT_WEBHOOK_TIMEOUT_S
        self.backoff = backoff
        self.queue: asyncio.Queue[Outgoing] = asyncio.Queue()
        self.running: set[asyncio.Task] = set()

    @property
    def enabled(self) -> bool:
        return bool(self.url)

    def send(self, alert_id: int, transition: str, payload: dict, due: datetime):
        """Queue one transition's POST; never blocks, never raises."""
        if self.enabled:
            self.queue.put_nowait(Outgoing(alert_id, transition, payload, due))

    async def run(self, stop: asyncio.Event):
        if not self.enabled:
            return
        slots = asyncio.Semaphore(CONCURRENCY)
        async with httpx.AsyncClient(timeout=self.timeout) as client:
            stopping = asyncio.ensure_future(stop.wait())
            try:
                while not stop.is_set():
                    getting = asyncio.ensure_future(self.queue.get())
                    await asyncio.wait({getting, stopping}, return_when=asyncio.FIRST_COMPLETED)
                    if not getting.done():
                        getting.cancel()
                        break
                    await slots.acquire()
                    task = asyncio.ensure_future(self.deliver(client, getting.result()))
                    self.running.add(task)
                    task.add_done_callback(lambda t: (self.running.discard(t), slots.release()))
            finally:
                stopping.cancel()
                for task in list(self.running):
                    task.cancel()
                with contextlib.suppress(Exception):
                    await asyncio.gather(*self.running, return_exceptions=True)

    async def deliver(self, client: httpx.AsyncClient, out: Outgoing):
        out.body = json.dumps(out.payload, separators=(",", ":")).encode()
        headers = {"Content-Type": "application/json", "User-Agent": "supervisor-dashboard"}
        if self.secret:
            headers[SIGNATURE_HEADER] = sign(self.secret, out.body)
        record = None
        wait = self.backoff
        for attempt in range(1, self.attempts + 1):
            status, error = None, ""
            try:
                response = await client.post(self.url, content=out.body, headers=headers)
                status = response.status_code
                if not 200 <= status < 300:
                    error = f"answered {status}"
            except httpx.HTTPError as exc:
                error = f"{type(exc).__name__}: {exc}"[:500]
            delivered = not error
            metrics.ALERT_DELIVERIES.labels("delivered" if delivered else "failed").inc()
            if delivered and attempt == 1:
                late = (datetime.now(UTC) - out.due).total_seconds()
                log.info(
                    "alert webhook: %s of alert %s posted %.0f ms after it fell due",
                    out.transition,
                    out.alert_id,
                    late * 1000,
                )
            last = delivered or attempt == self.attempts
            try:
                record = await in_thread(self.log_attempt)(
                    record, out, attempt, status, error, delivered, last
                )
            except Exception:
                log.exception(
                    "alert webhook: the delivery log of alert %s not written", out.alert_id
                )
            if delivered:
                return
            if last:
                log.warning(
                    "alert webhook: %s of alert %s given up after %d attempts (%s)",
                    out.transition,
                    out.alert_id,
                    attempt,
                    error,
                )
                return
            log.info(
                "alert webhook: %s of alert %s failed (%s); retrying in %.0f s",
                out.transition,
                out.alert_id,
                error,
                wait,
            )
            await asyncio.sleep(wait)
            wait *= 2

    def log_attempt(self, record, out, attempt, status, error, delivered, last):
        if record is None:
            record = AlertDelivery(
                alert_id=out.alert_id,
                transition=out.transition,
                url=self.url,
                body=out.body.decode(),
            )
        record.attempts = attempt
        record.status_code = status
        record.error = error
        record.delivered = delivered
        record.finished_at = datetime.now(UTC) if last else None
        record.save()
        return record
