"""Outbound webhooks of the simulated tenant: configuration, signed delivery, retries, log."""

import asyncio
import hashlib
import hmac
import json
import logging
import secrets
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime

import httpx

log = logging.getLogger("simulator.webhooks")

EVENTS = (
    "call_completed",
    "appointment_booked",
    "qa_scored",
    "compliance_checked",
    "coaching_alert",
)
RETRY_DELAYS = (1, 2, 4, 8)  # five attempts in all
TIMEOUT_S = 5.0


def sign(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class Webhook:
    id: str
    organization_id: str
    name: str
    url: str
    events: list[str]
    headers: dict[str, str]
    secret: str
    deliveries: list[dict] = field(default_factory=list)  # every attempt
    bodies: dict[str, bytes] = field(default_factory=dict)  # delivery id -> body

    def public(self, with_secret=False):
        data = {
            "id": self.id,
            "name": self.name,
            "url": self.url,
            "events": self.events,
            "headers": self.headers,
        }
        return {**data, "secret": self.secret} if with_secret else data


class Deliveries:
    """Sends deliveries in the background; a slow or failing receiver never blocks the model."""

    def __init__(self):
        self.hooks: dict[str, Webhook] = {}
        self.client = httpx.AsyncClient(timeout=TIMEOUT_S)
        self.tasks: set[asyncio.Task] = set()
        self.attempts = 0

    def create(self, org: str, name: str, url: str, events, headers, secret=None) -> Webhook:
        hook = Webhook(
            str(uuid.uuid4()),
            org,
            name,
            url,
            list(events),
            dict(headers or {}),
            secret or secrets.token_hex(24),
        )
        self.hooks[hook.id] = hook
        return hook

    def for_org(self, org: str, hook_id: str) -> Webhook | None:
        hook = self.hooks.get(hook_id)
        return hook if hook and hook.organization_id == org else None

    def emit(
        self, org: str, event: str, data: dict, *, only: Webhook | None = None, bad_signature=False
    ) -> list[str]:
        """Deliver one business event to every subscribed webhook; returns delivery ids."""
        ids = []
        for hook in [only] if only else list(self.hooks.values()):
            if hook.organization_id != org or event not in hook.events:
                continue
            delivery_id = str(uuid.uuid4())
            body = json.dumps(
                {
                    "id": delivery_id,
                    "event": event,
                    "organization_id": org,
                    "created_at": now_iso(),
                    "data": data,
                }
            ).encode()
            hook.bodies[delivery_id] = body
            self._spawn(hook, delivery_id, event, body, bad_signature)
            ids.append(delivery_id)
        return ids

    def replay(self, hook: Webhook, delivery_id: str) -> bool:
        body = hook.bodies.get(delivery_id)
        if body is None:
            return False
        self._spawn(hook, delivery_id, json.loads(body)["event"], body, False)
        return True

    def _spawn(self, hook, delivery_id, event, body, bad_signature):
        task = asyncio.get_running_loop().create_task(
            self._deliver(hook, delivery_id, event, body, bad_signature)
        )
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _deliver(self, hook, delivery_id, event, body, bad_signature):
        secret = secrets.token_hex(24) if bad_signature else hook.secret
        headers = {
            **hook.headers,
            "Content-Type": "application/json",
            "X-Webhook-Event": event,
            "X-Webhook-Signature": sign(secret, body),
        }
        for attempt in range(1, len(RETRY_DELAYS) + 2):
            self.attempts += 1
            started = time.monotonic()
            try:
                response = await self.client.post(hook.url, content=body, headers=headers)
                status = response.status_code
            except httpx.HTTPError as exc:
                status = None
                log.info(
                    "delivery %s attempt %d to %s failed: %s",
                    delivery_id,
                    attempt,
                    hook.url,
                    type(exc).__name__,
                )
            hook.deliveries.append(
                {
                    "id": delivery_id,
                    "event": event,
                    "attempt": attempt,
                    "status_code": status,
                    "sent_at": now_iso(),
                    "duration_ms": round((time.monotonic() - started) * 1000),
                    "body": body.decode(),
                }
            )
            if status is not None and 200 <= status < 300 or bad_signature:
                return
            if attempt <= len(RETRY_DELAYS):
                await asyncio.sleep(RETRY_DELAYS[attempt - 1])

    async def close(self):
        for task in list(self.tasks):
            task.cancel()
        await self.client.aclose()
