"""The dashboard's background work: the live bridge to the service, its feed, the
summaries refresher, the intraday recorder, the floor replay's recorder and its purge, the
processing of stored webhook deliveries, the drill-down's journal and its daily purge, the
alert engine and its chat webhook, the tray's offers on coaching alerts' live calls and
what changed against the normal (and each day's summary), wired together here (each is
handed what the others give it).

`run_bridge` is what `manage.py bridge` runs on its own (production) and what `manage.py
serve` runs beside Daphne on the same event loop (one machine: Daphne has no lifespan and
the in-memory channel layer does not cross processes). With REDIS_URL set, several bridges
may run and only the one holding the lease (`leader.py`) does this work, the webhook
processor included.
"""

import asyncio
import logging
from datetime import timedelta
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import httpx
from channels.db import database_sync_to_async
from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from dashboard.alerts.notify import Notifier
from dashboard.alerts.watch import AlertWatch
from dashboard.drilldown.journal import Journal
from dashboard.drilldown.refresh import TodayRead
from dashboard.drilldown.retention import run_retention
from dashboard.drilldown.tiles import TilePublisher
from dashboard.inbound.board import InboundBoard
from dashboard.inbound.publish import board_changed
from dashboard.live.feed import LiveFeed
from dashboard.live.leader import only_when_leading
from dashboard.live.state import LiveState
from dashboard.main.backfill import Backfill
from dashboard.main.coaching_offers import CoachingOffers
from dashboard.main.collector import keep_frozen
from dashboard.main.day_summary import run_day_summaries
from dashboard.normal.on_charts import floor_charts
from dashboard.normal.outside import outside_normal
from dashboard.normal.watch import ChangeWatch
from dashboard.quality.metrics import today_figures
from dashboard.quality.models import Delivery
from dashboard.quality.processing import run_processor
from dashboard.quality.publish import publish_qa
from dashboard.replay.recorder import Recorder as FloorRecorder
from dashboard.replay.retention import run_purge
from dashboard.reports.filling import FillingMirror
from dashboard.reports.outbound import queue_rows
from dashboard.reports.publish import campaigns_changed, floor_changed
from dashboard.reports.recorder import Recorder
from dashboard.reports.refresher import Refresher
from dashboard.shared import metrics, summaries
from dashboard.shared.aio import cache_work
from dashboard.shared.cache_keys import SNAPSHOT_KEY
from dashboard.states.journal import StateJournal
from dashboard.upstream import history
from dashboard.upstream.errors import NotOffered
from dashboard.upstream.realtime import Bridge
from dashboard.upstream.rest import from_settings
from dashboard.wallboard import panels

log = logging.getLogger("dashboard.live.bridge")
DAY_AHEAD = timedelta(hours=26)  # the day's calls: to past its end, whatever the clocks say


def socket_url(base_url: str) -> str:
    """Socket.IO lives on the API's host, without the /api path."""
    parts = urlsplit(base_url)
    return f"{parts.scheme}://{parts.netloc}"


def live_feed(state: LiveState, also=(), **options) -> LiveFeed:
    """The live feed, with its subscribers: the wallboard's panels riding along in its
    pushes, the agent pages, handed each changed agent's tile, and those `also` given."""
    return LiveFeed(state, subscribers=(panels.Panels(), TilePublisher(), *also), **options)


class Sinks:
    """What the bridge learns, handed to each sink in turn: the live feed, then the journal,
    the alert watch, the floor replay's recorder, the backfill and the inbound board."""

    def __init__(self, *sinks):
        self.sinks = sinks

    def snapshot(self, agents, calls):
        for sink in self.sinks:
            sink.snapshot(agents, calls)

    def event(self, event):
        for sink in self.sinks:
            sink.event(event)

    def status(self, state, reason=""):
        metrics.upstream_state(state)
        for sink in self.sinks:
            sink.status(state, reason)


def day_calls(rest):
    """The recorder's way to the service's calls of the day, to fill gaps with: the paged
    history (complete, a few requests); a service without it: the capped list and each
    agent's own (a request per agent, on the event loop that carries the live feed)."""

    async def list_calls(since, agent_ids):
        try:
            return await history.all_calls(rest, since, since + DAY_AHEAD), None
        except NotOffered:
            return await rest.day_calls(since=since, agent_ids=agent_ids)

    return list_calls


def summaries_changed():
    """After each refresh of the service's summaries: the pages that show them."""
    campaigns_changed()
    publish_qa()


async def history_filled(feed: LiveFeed):
    """After a day was read from the service's history: the figures and pages that show
    what it filled."""
    feed.set_figures(await database_sync_to_async(today_figures)())
    await database_sync_to_async(publish_qa)()
    await database_sync_to_async(floor_changed)(floor_charts)


def alert_figures() -> dict:
    """What the alert rules read from outside the live state (in a thread, every few
    seconds): the service's webhook deliveries that failed in the last 15 minutes, and each
    campaign's pending leads as last pulled, and how far each floor figure of the last
    whole 15 minutes is outside its normal band."""
    since = timezone.now() - timedelta(minutes=15)
    failing = Delivery.objects.filter(
        status__in=(Delivery.FAILED, Delivery.MALFORMED), received_at__gte=since
    ).count()
    names = {x.id: x.name for x in summaries.load("campaigns")["data"] or []}
    leads = {cid: (names.get(cid, cid), row["pending"]) for cid, row in queue_rows().items()}
    return {"webhooks_failing": failing, "leads": leads, "normal": outside_normal()}


def queue_plans(feed: LiveFeed) -> dict:
    """Each queue's name and goal, as the inbound board last handed them to the feed."""
    return (feed.inbox.figures.get("inbound") or {}).get("queues") or {}


async def run_bridge(stop: asyncio.Event):
    async with httpx.AsyncClient() as client:
        rest = from_settings(client)
        state = LiveState(ZoneInfo(settings.TIME_ZONE), settings.SERVICE_LEVEL_THRESHOLD_S)

        agent_pages = TodayRead()

        async def filling_moved():
            """Today's fill progress moved (its copy for the web processes written): the
            intraday charts, the campaigns' pages, the QA page and what changed say so, or
            show the whole day once done; the agent pages open fetch theirs then."""
            await database_sync_to_async(floor_changed, thread_sensitive=False)(floor_charts)
            await database_sync_to_async(campaigns_changed, thread_sensitive=False)()
            await database_sync_to_async(publish_qa, thread_sensitive=False)()
            await changes.evaluate()
            await agent_pages.moved()

        async def filling_past_moved():
            """The past weeks' fill progress alone moved: the intraday charts and what
            changed say so, or judge against the whole normal once done."""
            await database_sync_to_async(floor_changed, thread_sensitive=False)(floor_charts)
            await changes.evaluate()

        feed = live_feed(
            state,
            also=(FillingMirror(on_moved=filling_moved, on_past_moved=filling_past_moved),),
            heartbeat=settings.LIVE_HEARTBEAT_S,
            figures={
                "service_level_s": settings.SERVICE_LEVEL_THRESHOLD_S,
                "appointments_today": None,  # unknown until the webhook records are read
                "open_critical": None,
                "filling_pct": 0,  # until today is read from the service's history
                "filling_past_pct": None,  # while the past weeks compared with are read
            },
        )
        # Browsers ignore pushes not newer than theirs: go on from the last published version
        # (a previous leader's, or this process's before a restart).
        published = await cache_work(cache.get, SNAPSHOT_KEY)
        feed.publisher.version = published[0] if published else 0
        notifier = Notifier()
        # After the feed: the engine reads the state the feed has just changed.
        watch = AlertWatch(feed.inbox, notifier=notifier, outside=alert_figures)
        # The floor replay's recorder: after the feed, whose state it copies. It writes the
        # agents' states (the one record) when it records, the journal otherwise.
        recorders = [FloorRecorder(state)] if settings.REPLAY_RECORD else []
        journal = Journal(states=None if recorders else StateJournal())
        replay = [work for r in recorders for work in (r.run(stop), run_purge(stop))]
        recorder = Recorder(state, list_calls=day_calls(rest), charts=floor_charts)
        backfill = Backfill(
            rest,
            state,
            recorder,
            on_progress=lambda pct: feed.set_figures({"filling_pct": pct}),
            on_past_progress=lambda pct: feed.set_figures({"filling_past_pct": pct}),
            on_filled=lambda: history_filled(feed),  # a coroutine
        )
        offers = CoachingOffers()  # the tray's listen and whisper on coaching alerts' calls
        board = InboundBoard(rest, state, on_board=board_changed, on_figures=feed.set_figures)
        sinks = Sinks(feed, journal, watch, *recorders, backfill, offers, board)
        # What changed against the normal: worked out here, pushed by the feed.
        changes = ChangeWatch(
            state,
            feed.set_figures,
            plans=lambda: queue_plans(feed),
            filling=lambda: feed.inbox.figures.get("filling_pct"),
            filling_past=lambda: feed.inbox.figures.get("filling_past_pct"),
        )
        bridge = Bridge(
            socket_url(settings.UPSTREAM_BASE_URL),
            rest.session,
            rest,
            sinks,
            on_notice=board.notice,
        )
        await asyncio.gather(
            feed.run(stop),
            bridge.run(stop),
            Refresher(rest, feed, on_refreshed=summaries_changed).run(stop),
            recorder.run(stop),
            backfill.run(stop),
            run_processor(stop, on_figures=feed.set_figures),
            journal.run(stop),
            run_retention(stop),
            watch.run(stop),
            notifier.run(stop),
            board.run(stop),
            offers.run(stop),
            changes.run(stop),
            run_day_summaries(stop, notifier),
            keep_frozen(stop),  # the collector's full passes: over young objects only
            *replay,
        )


class BridgeTask:
    """Starts the background work on the running loop and stops it cleanly."""

    def __init__(self):
        self.stop_event = asyncio.Event()
        self.tasks: list[asyncio.Task] = []

    def start(self):
        work = only_when_leading(run_bridge) if settings.REDIS_URL else run_bridge
        self.tasks.append(asyncio.ensure_future(self._supervised(work)))

    async def _supervised(self, work):
        while not self.stop_event.is_set():
            try:
                await work(self.stop_event)
            except Exception:
                log.exception("%s stopped unexpectedly; restarting it", work.__name__)
                await asyncio.sleep(1)

    async def stop(self):
        self.stop_event.set()
        if self.tasks:
            await asyncio.wait(self.tasks, timeout=5)
