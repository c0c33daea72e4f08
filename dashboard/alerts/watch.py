"""The alert engine at work beside the live feed, in the leading bridge.

It is one of the bridge's sinks (after the feed, which has applied the change by then):
every snapshot, event and status change wakes it, and so does a one-second tick and the
moment the engine says the next transition falls due (`Engine.next_due`), so an alert
fires when its condition has held its duration, not up to a tick later. Evaluations are
coalesced: at most one per `gap` seconds under a burst of events.

Each evaluation's transitions are written (a worker thread, never Django's shared one),
the tray and the wallboards' banner rendered once and pushed, and each transition but a
group's members changing queued for the chat webhook (notify.py), which the evaluation
never waits for. A failed
evaluation or write is logged once with its context and the loop goes on. Rules are
reloaded when one is saved anywhere (signals.py), and the open alerts the database holds
are taken up at start, so a bridge that takes over continues them instead of raising them
again. The figures from outside the live state (webhook deliveries failing, campaigns'
pending leads) are read every `OUTSIDE_EVERY_S` by a callable the composition root hands
in.
"""

import asyncio
import logging
import time
from dataclasses import replace
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from channels.layers import get_channel_layer
from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.urls import reverse

from dashboard.live.handshake import in_thread
from dashboard.live.leader import still_leading
from dashboard.shared import metrics
from dashboard.shared.aio import pause

from . import members, tray
from .engine import (
    CHANGED,
    CLEARED,
    ESCALATED,
    RAISED,
    Engine,
    Floor,
    RuleSpec,
    Transition,
    sentence,
)
from .models import Alert, Rule
from .signals import ACK_STAMP, RULES_STAMP

log = logging.getLogger("dashboard.alerts.watch")
TICK_S = 1.0
# At most two evaluations a second under a burst of events: each with transitions pushes the
# tray to every open page (1,500 sockets in the bench's crowd), and at 1,000 agents the
# per-agent rules change something nearly every pass. A transition still reaches the tray
# well within a second of falling due.
GAP_S = 0.5
OUTSIDE_EVERY_S = 5.0
RELOAD_EVERY_S = 30.0  # rules saved where the cache stamp does not reach (another process, demo)


def now() -> datetime:
    return datetime.now(UTC)


def parse_time(value) -> datetime | None:
    if isinstance(value, datetime) or value is None:
        return value
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


class AlertWatch:
    def __init__(self, feed, *, notifier=None, outside=None, tick=TICK_S, gap=GAP_S):
        self.feed = feed  # the feed's inbox: the state, status and figures the rules read
        self.notifier = notifier
        self.outside = outside  # () -> {"webhooks_failing": n, "leads": {...}}, sync
        self.tick, self.gap = tick, gap
        self.published: dict[str, str] = {}  # group -> the html last pushed to it
        self.lists: dict[str, str] = {}  # the group alerts' lists of agents last pushed
        self.engine = Engine()
        self.wakeup = asyncio.Event()
        self.outside_figures: dict = {}
        self.outside_at = 0.0
        self.loaded_at = 0.0
        self.stamps = (None, None)  # (rules, acknowledgements) last seen
        self.tz = ZoneInfo(settings.TIME_ZONE)
        self.failed: set[str] = set()  # what already failed, so it is logged once
        self.started_at = now()
        self.unwritten: list[Transition] = []  # a pass's, while the database was away

    # ---- The bridge's sink: every change wakes the engine ------------------------------------
    def snapshot(self, agents, calls):
        self.wakeup.set()

    def event(self, event):
        self.wakeup.set()

    def status(self, state, reason=""):
        self.wakeup.set()

    # ---- The loop -------------------------------------------------------------------------------
    async def run(self, stop: asyncio.Event):
        watcher = asyncio.ensure_future(stop.wait())
        watcher.add_done_callback(lambda _: self.wakeup.set())
        try:
            await self.guarded("loading the rules and open alerts", self.load)
            await self.guarded("publishing the tray", self.publish)
            last = 0.0
            while not stop.is_set():
                await pause(self.wakeup, self.until_due())
                gap = time.monotonic() - last
                if gap < self.gap:
                    await asyncio.sleep(self.gap - gap)
                self.wakeup.clear()
                if stop.is_set():
                    break
                await self.guarded("evaluating the rules", self.step)
                last = time.monotonic()
        finally:
            watcher.cancel()

    def until_due(self) -> float:
        """Seconds to the next tick, or sooner to the next transition's due moment."""
        try:
            due = self.engine.next_due(self.floor(), now())
        except Exception:
            return self.tick
        if due is None:
            return self.tick
        return max(0.0, min(self.tick, (due - now()).total_seconds()))

    async def guarded(self, what: str, work):
        try:
            await work()
            self.failed.discard(what)
        except Exception:
            if what not in self.failed:  # logged once until it works again
                log.exception("alerts: %s failed; going on", what)
                self.failed.add(what)

    def floor(self) -> Floor:
        upstream = self.feed.upstream
        return Floor(
            self.feed.state,
            {"state": upstream.get("state"), "since": parse_time(upstream.get("since"))},
            self.feed.figures,
            self.outside_figures,
        )

    async def load(self):
        self.started_at = now()
        rules, open_alerts = await in_thread(load_rules_and_open)()
        self.engine.set_rules(rules)
        for rule_id, subject, level, held, raised_at in open_alerts:
            self.engine.restore(rule_id, subject, level, held, raised_at)
        self.stamps = await in_thread(stamps)()
        self.loaded_at = time.monotonic()

    async def step(self):
        rules_stamp, ack_stamp = await in_thread(stamps)()
        republish = ack_stamp != self.stamps[1]
        if rules_stamp != self.stamps[0] or time.monotonic() - self.loaded_at >= RELOAD_EVERY_S:
            self.loaded_at = time.monotonic()
            rules, _ = await in_thread(load_rules_and_open)()
            gone = self.engine.set_rules(rules)
            if gone:
                await in_thread(clear_gone)(gone, now())
                republish = True
        self.stamps = (rules_stamp, ack_stamp)
        if self.outside and time.monotonic() - self.outside_at >= OUTSIDE_EVERY_S:
            self.outside_at = time.monotonic()
            await self.guarded("reading the figures from outside the live state", self.read_outside)
        evaluated = []
        for found in self.engine.evaluating(self.floor(), now()):
            evaluated += found
            await asyncio.sleep(0)  # the feed's events are applied between slices
        metrics.alerts_evaluated(evaluated)
        transitions = self.unwritten + evaluated  # the engine has moved on: write them first
        if not transitions:
            if republish:
                await self.publish()
            return
        if not still_leading():
            return  # fenced: another bridge may lead by now
        try:
            written = await in_thread(record)(transitions, self.tz)
        except Exception:
            self.unwritten = transitions  # written, pushed and posted once it is back
            raise
        self.unwritten = []
        await self.publish()
        pushed = now()
        for t, body in written:
            if t.kind == CHANGED:  # the group's list: the tray and its page, not chat news
                continue
            if self.notifier:
                self.notifier.send(body["id"], t.kind, body, t.at)
            if t.at >= self.started_at:  # the latency: from falling due to the tray's push
                late = (
                    f"tray pushed {(pushed - t.at).total_seconds() * 1000:.0f} ms after it fell due"
                )
            else:
                late = "it fell due before this bridge watched"
            log.info(
                "alert %s: %s (rule %s, %s); %s", t.kind, body["text"], t.rule.id, t.subject, late
            )

    async def read_outside(self):
        self.outside_figures = await in_thread(self.outside)()

    async def publish(self):
        """Push the tray and banners that changed since the last push (a new socket reads
        them from the cache)."""
        parts, lists = await in_thread(render_and_store)()
        layer = get_channel_layer()
        for group, html in parts.items():
            if self.published.get(group) != html:
                await layer.group_send(group, {"type": "push.html", "html": html})
        self.published = parts
        if lists != self.lists:
            await layer.group_send(members.GROUP, {"type": "alert.members", "lists": lists})
        self.lists = lists


# ---- In worker threads ------------------------------------------------------------------------
def stamps():
    got = cache.get_many([RULES_STAMP, ACK_STAMP])
    return got.get(RULES_STAMP), got.get(ACK_STAMP)


def load_rules_and_open():
    rules = [RuleSpec.of(r) for r in Rule.objects.filter(enabled=True)]
    ids = {r.id for r in rules}
    open_alerts = [
        (a.rule_id, a.subject, a.level, a.members, a.raised_at)
        for a in Alert.objects.filter(cleared_at__isnull=True, rule_id__in=ids)
    ]
    return rules, open_alerts


def clear_gone(gone, at):
    for rule_id, subject in gone:
        Alert.objects.filter(rule_id=rule_id, subject=subject, cleared_at__isnull=True).update(
            cleared_at=at
        )


def render_and_store() -> tuple[dict[str, str], dict[str, str]]:
    parts, lists = tray.render_all(), members.render_all()
    tray.store(parts)
    members.store(lists)
    return parts, lists


def payload(alert: Alert, t: Transition) -> dict:
    """The chat webhook's body (docs/alerts.md); a group's adds `count` and `members`."""
    url = alert.url or reverse("alerts")
    body = {
        "id": alert.id,
        "rule": t.rule.name,
        "transition": t.kind,
        "level": alert.level,
        "subject": alert.subject_label,
        "value": t.value,
        "limit": t.limit,
        "raised_at": alert.raised_at.isoformat(),
        "escalated_at": alert.escalated_at.isoformat() if alert.escalated_at else None,
        "cleared_at": alert.cleared_at.isoformat() if alert.cleared_at else None,
        "url": f"{settings.DASHBOARD_URL}{url}",
        "text": alert.text,
    }
    if t.rule.grouped:
        body["count"] = len(t.members)
        body["members"] = [agent_id for agent_id, _ in t.members]
    return body


def record(transitions: list[Transition], tz) -> list[tuple[Transition, dict]]:
    """Write an evaluation's transitions in one transaction (after a frozen floor, hundreds
    fall due together: one commit each cost 5 ms), with their open alerts read in one query,
    each in its own savepoint, so one that fails is logged and the others kept;
    (transition, webhook body) for each one written."""
    out = []
    with transaction.atomic():
        open_alerts = open_of(transitions)
        for t in transitions:
            try:
                with transaction.atomic():
                    alert = write(t, tz, open_alerts.get((t.rule.id, t.subject)))
            except IntegrityError:  # raised meanwhile by another process: that one stands
                continue
            except Exception:
                log.exception(
                    "alerts: %s of rule %s for %s not recorded", t.kind, t.rule.id, t.subject
                )
                continue
            if alert is not None:
                out.append((t, payload(alert, t)))
    return out


def open_of(transitions: list[Transition]) -> dict[tuple[int, str], Alert]:
    """The open alerts of these transitions' rules and subjects, locked, by (rule, subject)."""
    rows = Alert.objects.select_for_update().filter(
        cleared_at__isnull=True,
        rule_id__in={t.rule.id for t in transitions},
        subject__in={t.subject for t in transitions},
    )
    return {(a.rule_id, a.subject): a for a in rows}


def write(t: Transition, tz, open_alert: Alert | None) -> Alert | None:
    listed = [list(m) for m in t.members]
    if t.kind == RAISED:
        if open_alert is not None:  # another leader's, still open: continue it
            return None
        alert = Alert.objects.create(
            rule_id=t.rule.id,
            subject=t.subject,
            subject_label=t.label[:200],
            url=t.url[:300],
            level=t.level,
            value=t.value,
            limit=t.limit,
            text=sentence(t, tz)[:400],
            raised_at=t.at,
            members=listed,
            of=t.of,
        )
        if t.rule.grouped:  # its page lists the agents
            alert.url = reverse("alert", args=[alert.id])
            alert.save(update_fields=["url"])
        return alert
    if open_alert is None:
        return None
    t = replace(t, label=t.label or open_alert.subject_label)  # a restored alert's label
    open_alert.members, open_alert.of = listed, t.of
    if t.kind == CHANGED:
        open_alert.text = sentence(replace(t, since=t.since or open_alert.raised_at), tz)[:400]
    elif t.kind == ESCALATED:
        open_alert.level = t.level
        open_alert.escalated_at = t.at
        open_alert.text = sentence(t, tz)[:400]
    elif t.kind == CLEARED:
        open_alert.cleared_at = t.at
        open_alert.text = sentence(t, tz, raised_at=open_alert.raised_at)[:400]
    open_alert.value, open_alert.limit = t.value, t.limit
    open_alert.save()
    return open_alert
