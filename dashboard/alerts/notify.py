"""The chat webhook: signed JSON POSTs of alert transitions (raised, escalated, cleared),
paced for people and for chat tools.

`Notifier.send` only appends the transition to a list and returns: the engine's path never
waits for a chat tool. `Notifier.run` posts from that list, one POST at a time:

- transitions that fall due within `ALERT_WEBHOOK_DIGEST_S` (2 s) of the first are folded
  into one *digest*;
- at most one POST per `ALERT_WEBHOOK_MIN_INTERVAL_S`: what falls due meanwhile waits and is
  folded into the next (chat tools accept about one message a second per webhook, and people
  stop reading after the tenth);
- a POST not answered 2xx is sent again, the same body, after the receiver's `Retry-After`
  (429, 503) or a backoff (1, 2, 4, 8, 16 s), up to `ALERT_WEBHOOK_ATTEMPTS` tries; one given
  up has its transitions carried into the next POST, so none is lost.

Every POST and its attempts are logged in `AlertDelivery` (the Managers' delivery log),
written in a worker thread. The body is JSON; its signature is `X-Dashboard-Signature:
sha256=<hex HMAC-SHA256 of the raw body with ALERT_WEBHOOK_SECRET>` (docs/alerts.md).
"""

import asyncio
import hashlib
import hmac
import json
import logging
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import httpx
from django.conf import settings

from dashboard.live.handshake import in_thread
from dashboard.shared import metrics
from dashboard.shared.aio import until_stopped

from .models import ALARM, AlertDelivery

log = logging.getLogger("dashboard.alerts.notify")
SIGNATURE_HEADER = "X-Dashboard-Signature"
BACKOFF_S = 1.0  # doubled after each failed attempt
MAX_FOLDED = 50  # transitions in one POST at most; the rest go in the next
MAX_WAIT_S = 300.0  # the longest Retry-After honoured
SHOWN = 10  # sentences in a digest's text; its `alerts` has every one
DIGEST = "digest"


def sign(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


@dataclass
class Outgoing:
    alert_id: int | None
    transition: str
    payload: dict
    due: datetime  # when the transition fell due: the latency is measured from it
    queued: float = field(default_factory=time.monotonic)


def body_of(batch: list[Outgoing]) -> dict:
    """One transition's payload as it is; several folded into a digest: the most severe
    one's keys, `transition` "digest", a text of their sentences, and each in `alerts`."""
    if len(batch) == 1:
        return batch[0].payload
    lead = min(batch, key=lambda o: (o.payload.get("level") != ALARM, o.transition == "cleared"))
    texts = [o.payload.get("text", "") for o in batch]
    more = f" And {len(texts) - SHOWN} more." if len(texts) > SHOWN else ""
    return {
        **lead.payload,
        "transition": DIGEST,
        "url": f"{settings.DASHBOARD_URL}/alerts/",
        "text": f"{len(batch)} alert changes: " + " ".join(texts[:SHOWN]) + more,
        "alerts": [o.payload for o in batch],
    }


def retry_after(response: httpx.Response | None) -> float | None:
    """The receiver's `Retry-After` in seconds (a number or an HTTP date), if it sent one."""
    value = response.headers.get("Retry-After", "").strip() if response is not None else ""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = (parsedate_to_datetime(value) - datetime.now(UTC)).total_seconds()
        except (TypeError, ValueError):
            return None
    return min(MAX_WAIT_S, max(0.0, seconds))


class Notifier:
    def __init__(
        self,
        url: str | None = None,
        secret: str | None = None,
        *,
        attempts: int | None = None,
        timeout: float | None = None,
        backoff: float = BACKOFF_S,
        min_interval: float | None = None,
        digest: float | None = None,
        carry: bool = True,
    ):
        self.url = settings.ALERT_WEBHOOK_URL if url is None else url
        self.secret = settings.ALERT_WEBHOOK_SECRET if secret is None else secret
        self.attempts = attempts or settings.ALERT_WEBHOOK_ATTEMPTS
        self.timeout = timeout or settings.ALERT_WEBHOOK_TIMEOUT_S
        self.min_interval = (
            settings.ALERT_WEBHOOK_MIN_INTERVAL_S if min_interval is None else min_interval
        )
        self.backoff = backoff
        self.digest = settings.ALERT_WEBHOOK_DIGEST_S if digest is None else digest
        self.carry = carry  # a POST given up goes into the next (False: no next, a one-off)
        self.pending: list[Outgoing] = []
        self.arrived = asyncio.Event()
        self.last_post = float("-inf")  # time.monotonic() of the last new POST

    @property
    def enabled(self) -> bool:
        return bool(self.url)

    def send(self, alert_id: int | None, transition: str, payload: dict, due: datetime):
        """Queue one transition (alert_id None: a day's summary) for the next POST; never
        blocks, never raises."""
        if self.enabled:
            self.pending.append(Outgoing(alert_id, transition, payload, due))
            self.arrived.set()

    async def run(self, stop: asyncio.Event):
        if not self.enabled:
            return
        async with httpx.AsyncClient(timeout=self.timeout) as client:
            while not stop.is_set():
                if not self.pending:
                    self.arrived.clear()
                    await until_stopped(stop, self.arrived.wait())
                    continue
                due = max(self.pending[0].queued + self.digest, self.last_post + self.min_interval)
                if due > time.monotonic():
                    await until_stopped(stop, asyncio.sleep(due - time.monotonic()))
                    continue
                batch, self.pending = self.pending[:MAX_FOLDED], self.pending[MAX_FOLDED:]
                self.last_post = time.monotonic()
                try:
                    await until_stopped(stop, self.deliver(client, batch))
                except Exception:
                    log.exception("alert webhook: a POST of %d transitions failed", len(batch))

    async def deliver(self, client: httpx.AsyncClient, batch: list[Outgoing]) -> bool:
        """POST `batch`, tried again as the receiver or the backoff says; whether it was
        taken."""
        body = json.dumps(body_of(batch), separators=(",", ":")).encode()
        headers = {"Content-Type": "application/json", "User-Agent": "supervisor-dashboard"}
        if self.secret:
            headers[SIGNATURE_HEADER] = sign(self.secret, body)
        what = f"{batch[0].transition} of alert {batch[0].alert_id}"
        if len(batch) > 1:
            what = f"a digest of {len(batch)} transitions"
        record = None
        backoff = self.backoff
        for attempt in range(1, self.attempts + 1):
            status, error, response = None, "", None
            try:
                response = await client.post(self.url, content=body, headers=headers)
                status = response.status_code
                if not 200 <= status < 300:
                    error = f"answered {status}"
            except httpx.HTTPError as exc:
                error = f"{type(exc).__name__}: {exc}"[:300]
            delivered = not error
            metrics.ALERT_DELIVERIES.labels("delivered" if delivered else "failed").inc()
            last = delivered or attempt == self.attempts
            wait = retry_after(response)
            if error and not last:
                told = "Retry-After" if wait is not None else "backoff"
                wait = backoff if wait is None else wait
                error = f"{error}; tried again after {wait:g} s ({told})"
            elif error:
                error = f"{error}; given up" + (
                    ", its transitions carried into the next POST" if self.carry else ""
                )
            if delivered:
                now = datetime.now(UTC)
                for out in batch:
                    log.info(
                        "alert webhook: %s of alert %s posted %.0f ms after it fell due%s",
                        out.transition,
                        out.alert_id,
                        (now - out.due).total_seconds() * 1000,
                        f" (attempt {attempt})" if attempt > 1 else "",
                    )
            try:
                record = await in_thread(self.log_attempt)(
                    record, batch, body, attempt, status, error, delivered, last
                )
            except Exception:
                log.exception("alert webhook: the delivery log of %s not written", what)
            if delivered:
                return True
            if last:
                log.warning(
                    "alert webhook: %s given up after %d attempts (%s)", what, attempt, error
                )
                if self.carry:
                    self.pending[:0] = batch  # carried into the next POST: nothing is lost
                return False
            log.info("alert webhook: %s failed (%s)", what, error)
            await asyncio.sleep(wait)
            backoff *= 2

    def log_attempt(self, record, batch, body, attempt, status, error, delivered, last):
        if record is None:
            record = AlertDelivery(
                alert_id=batch[0].alert_id,
                transition=batch[0].transition if len(batch) == 1 else DIGEST,
                transitions=len(batch),
                url=self.url,
                body=body.decode(),
            )
        record.attempts = attempt
        record.status_code = status
        if error or not delivered:  # delivered after a retry: the failure before it stays
            record.error = error[:500]
        record.delivered = delivered
        record.finished_at = datetime.now(UTC) if last else None
        record.save()
        return record


NOW_ATTEMPTS = 2  # a message a person sends from a page: tried at most this often


async def post_now(transition: str, payload: dict) -> bool | None:
    """One message to the chat webhook at once, outside the paced queue (a person asked
    for it on a page): signed and logged like the rest, tried at most `NOW_ATTEMPTS`
    times. None: no webhook configured; else whether the chat took it."""
    notifier = Notifier(attempts=min(NOW_ATTEMPTS, settings.ALERT_WEBHOOK_ATTEMPTS), carry=False)
    if not notifier.enabled:
        return None
    async with httpx.AsyncClient(timeout=notifier.timeout) as client:
        out = Outgoing(None, transition, payload, datetime.now(UTC))
        return await notifier.deliver(client, [out])
