"""Every Prometheus metric of the dashboard, defined once, and the one-line calls the rest
of the code makes to move them (docs/deploy.md, Metrics).

Several processes (web workers, bridges) each count on their own: with
`PROMETHEUS_MULTIPROC_DIR` set (before this module is imported, as the environment is)
prometheus_client writes each process's values to files there, and a scrape on any web
worker sums them (`registry`). Histograms have fixed buckets, so workers' add up; gauges
say how they combine (`multiprocess_mode`). Names start with `dashboard_`; labels take
only bounded values (event kinds, endpoint templates, results).
"""

import atexit
import os
import re
import sys
import time
from datetime import datetime

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    multiprocess,
)

MULTIPROCESS_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")
# Seconds: from a few milliseconds (a push on a quiet floor) to a minute (a stalled feed).
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)

EVENTS_RECEIVED = Counter(
    "dashboard_events_received", "Realtime events received from the service", ["kind"]
)
EVENTS_APPLIED = Counter(
    "dashboard_events_applied", "Realtime events applied to the live state", ["kind"]
)
BRIDGE_LAG = Histogram(
    "dashboard_bridge_lag_seconds",
    "From an event's emission by the service to its application by the bridge",
    buckets=LATENCY_BUCKETS,
)
UPSTREAM_STATE = Gauge(
    "dashboard_upstream_state",
    "1 for the bridge's current state of the service's feed, 0 for the others",
    ["state"],
    multiprocess_mode="livemax",
)
UPSTREAM_CONNECTS = Counter(
    "dashboard_upstream_connects", "Realtime connections made to the service (reconnects too)"
)
REST_CALLS = Counter("dashboard_rest_calls", "REST calls to the service", ["endpoint", "status"])
REST_LATENCY = Histogram(
    "dashboard_rest_call_seconds",
    "REST calls to the service: time to the whole answer",
    ["endpoint"],
    buckets=LATENCY_BUCKETS,
)
WEBHOOKS = Counter(
    "dashboard_webhook_deliveries", "Webhook deliveries received, by the answer", ["result"]
)
PUSHES = Counter(
    "dashboard_pushes", "Pushes framed and written to the sockets of a web worker", ["type"]
)
PUSH_LATENCY = Histogram(
    "dashboard_push_latency_seconds",
    "From the oldest event of a push's emission by the service to its frames written",
    buckets=LATENCY_BUCKETS,
)
SOCKETS_OPEN = Gauge(
    "dashboard_sockets_open", "Websockets open, by page", ["kind"], multiprocess_mode="livesum"
)
SOCKETS_BEHIND_CLOSED = Counter(
    "dashboard_sockets_closed_backpressure",
    "Websockets closed (1012) for not draining what they were sent in time",
)
ALERT_EVALUATIONS = Counter("dashboard_alert_evaluations", "Passes of the alert rules")
ALERT_TRANSITIONS = Counter(
    "dashboard_alert_transitions", "Alerts raised, escalated and cleared", ["kind"]
)
ALERT_DELIVERIES = Counter(
    "dashboard_alert_deliveries", "Attempts to post an alert to the chat webhook", ["result"]
)
BACKFILL_PROGRESS = Gauge(
    "dashboard_backfill_progress_ratio",
    "Share of today read from the service's history (1: filled, or nothing to fill)",
    multiprocess_mode="livemax",
)
BODIES_RENDERED = Counter(
    "dashboard_page_bodies_rendered",
    "Page bodies rendered for the pushes of the pages someone has open, by page",
    ["page"],
)
STORE_ERRORS = Counter(
    "dashboard_store_errors", "Errors of the database or Redis, where they were met", ["store"]
)

WEBHOOK_RESULTS = {
    202: "accepted",
    200: "duplicate",
    400: "invalid",
    401: "bad_signature",
    403: "foreign",
    413: "too_large",
}
ID_LIKE = re.compile(r"\d|^[^/]{25,}$")


def registry():
    """What a scrape reads: every process's files in multiprocess mode, else this process."""
    if not MULTIPROCESS_DIR:
        return REGISTRY
    merged = CollectorRegistry()
    multiprocess.MultiProcessCollector(merged)
    return merged


def _process_exits():
    """A stopped process's live gauges (open sockets, the feed's state) leave the sums."""
    multiprocess.mark_process_dead(os.getpid())


if MULTIPROCESS_DIR:
    atexit.register(_process_exits)


# ---- The calls the code makes, one line each -------------------------------------------------
def event_applied(kind: str, emitted_at: datetime):
    EVENTS_APPLIED.labels(kind).inc()
    BRIDGE_LAG.observe(max(0.0, time.time() - emitted_at.timestamp()))


def upstream_state(state: str):
    for known in ("connecting", "connected", "disconnected", "config_error", state):
        UPSTREAM_STATE.labels(known).set(1 if known == state else 0)


def endpoint(method: str, path: str) -> str:
    """`GET /calls/c-123/recordings` is `GET /calls/{id}/recordings`: bounded labels."""
    parts = [("{id}" if ID_LIKE.search(p) else p) for p in path.split("?")[0].split("/")]
    return f"{method} {'/'.join(parts)}"


def rest_answered(method: str, path: str, response=None, failure: str = ""):
    """A REST call's answer (`response`), or its `failure` (timeout, error)."""
    name = endpoint(method, path)
    REST_CALLS.labels(name, str(response.status_code) if response is not None else failure).inc()
    if response is not None:
        REST_LATENCY.labels(name).observe(response.elapsed.total_seconds())


def webhook_answered(status: int):
    WEBHOOKS.labels(WEBHOOK_RESULTS.get(status, str(status))).inc()


class OldestEvent:
    """The emission time of the oldest event not yet pushed (the bridge's feed)."""

    def __init__(self):
        self.at: float | None = None

    def note(self, emitted_at: datetime):
        stamp = emitted_at.timestamp()
        self.at = stamp if self.at is None else min(self.at, stamp)

    def take(self) -> float | None:
        at, self.at = self.at, None
        return at


PENDING_EVENTS = OldestEvent()


def pushed(message: dict):
    """A push framed and written to the sockets (a web worker's relay)."""
    PUSHES.labels(message.get("type", "")).inc()
    if message.get("emitted") is not None:
        PUSH_LATENCY.observe(max(0.0, time.time() - message["emitted"]))


def socket_kind(consumer) -> str:
    return type(consumer).__name__.removesuffix("Consumer").lower() or "socket"


def socket_opened(consumer):
    consumer.counted_as = socket_kind(consumer)
    SOCKETS_OPEN.labels(consumer.counted_as).inc()


def socket_closed(consumer):
    kind = getattr(consumer, "counted_as", None)
    if kind:
        consumer.counted_as = None
        SOCKETS_OPEN.labels(kind).dec()


def alerts_evaluated(transitions):
    ALERT_EVALUATIONS.inc()
    for t in transitions:
        ALERT_TRANSITIONS.labels(t.kind).inc()


def backfill_progress(pct: int | None):
    """The backfill's progress in whole percent; None: done."""
    BACKFILL_PROGRESS.set(1.0 if pct is None else pct / 100)


def store_error(error: BaseException):
    """Counted by store: an error of the database (Django's) or of Redis, else nothing."""
    for cls in type(error).__mro__:
        module = cls.__module__
        if module.startswith("redis"):
            STORE_ERRORS.labels("redis").inc()
            return
        if cls.__name__ in ("DatabaseError", "InterfaceError") and module.startswith("django.db"):
            STORE_ERRORS.labels("database").inc()
            return


def request_failed(sender, request=None, **kwargs):
    """Django's `got_request_exception`: a view's database or Redis error counted."""
    error = sys.exc_info()[1]
    if error is not None:
        store_error(error)
