"""Each queue and each campaign against its own band, and handle time by campaign, from
days of known shape (dashboard/testing/normal_days.py): a queue surge is reported as the
queue's own change (its calls offered against its own band) beside the floor's, and the
campaign dialling twice its normal as the campaign's; a campaign's agents talking longer
is the floor's handle time's first cause ("average handle time on Solar Leads up 1:10"),
ranked by share with a second campaign, and a change of that campaign's own; a small
queue's bumps are its noise; the panel the bridge renders (on the live view of a dashboard
served against the simulated tenant) and the day's page link each to its queue or
campaign."""

from datetime import UTC, datetime, timedelta
from html import unescape
from zoneinfo import ZoneInfo

import pytest
from asgiref.sync import async_to_sync
from django.core.cache import cache

from dashboard.inbound.board import BOARD_KEY
from dashboard.inbound.models import QueueSlot
from dashboard.normal.panel import evaluate
from dashboard.quality.models import CompletedCall
from dashboard.shared import summaries
from dashboard.testing.normal_days import CARE, PLANS, SALES, rows, slot, write, write_sqlite
from dashboard.testing.processes import wait_until
from dashboard.testing.servers import migrated_sqlite, start_dashboard
from dashboard.upstream import contract as c


@pytest.fixture
def named(db):
    """The campaigns as the dashboard last read them: k1 is Solar Leads."""
    campaigns = [
        c.Campaign(k, name, "active", "predictive", 1000, 0, 0, 0, None)
        for k, name in (("k1", "Solar Leads"), ("k2", "Roof Care"))
    ]
    async_to_sync(summaries.store_good)("campaigns", campaigns, datetime.now(UTC))
    cache.set(BOARD_KEY, {"queues": [{"id": q, **plan} for q, plan in PLANS.items()]})
    yield
    cache.delete(summaries.key("campaigns"))
    cache.delete(BOARD_KEY)


def hour_of(when: datetime) -> float:
    return when.hour + when.minute / 60


def at(zone, hour: float) -> datetime:
    today = datetime.now(zone).date()
    return datetime.combine(today, datetime.min.time(), zone) + timedelta(hours=hour)


def changed(what: dict, key: str) -> dict:
    found = [x for x in what["changes"] if x["key"] == key]
    assert len(found) == 1, [x["key"] for x in what["changes"]]
    return found[0]


def page(client, path) -> str:
    return unescape(" ".join(client.get(path).content.decode().split()))


def test_a_queue_surge_is_the_queues_own_change_and_the_campaigns(zone, named):
    now = datetime.now(zone)
    surge = hour_of(now) // 1 - 1

    def shape(hour, weeks_ago):
        if weeks_ago == 0 and hour >= surge:
            return slot(80, sl=(12, 20), sales=60)
        return None

    write(rows(zone, now, until=hour_of(now), shape=shape))
    what = evaluate(at(zone, surge + 0.25) + timedelta(seconds=6), [], PLANS)
    since = f"{int(surge):02d}:00"
    sales = changed(what, f"queue:{SALES}:offered")
    assert sales["sentence"] == f"Sales queue calls offered 20 → 60 since {since}"
    # 19, 21, 20 and 19 the weeks before: the band is two of a count's deviations, ± 2√19.5.
    assert sales["where"] == "above its own normal band 11 – 28"
    assert sales["link"] == f"/queues/{SALES}/" and sales["ongoing"]
    dialed = changed(what, "campaign:k1:dialed")
    assert dialed["sentence"] == f"Solar Leads dial attempts 20 → 40 since {since}"
    assert dialed["link"] == "/campaigns/k1/"
    keys = {x["key"] for x in what["changes"]}
    # Care was offered its normal; each queue's service level fell below its own band
    # in the slot it fell below its goal: told once, as the goal's change.
    assert f"queue:{CARE}:offered" not in keys
    assert {f"goal:{SALES}", f"goal:{CARE}"} <= keys
    assert not {f"queue:{SALES}:service_level", f"queue:{CARE}:service_level"} & keys
    # The panel the bridge rendered links the queue's change to the queue.
    assert f'<a href="/queues/{SALES}/">Sales queue calls offered 20 → 60' in " ".join(
        what["html"].split()
    )


def test_a_campaign_talking_longer_is_the_handle_times_first_cause(zone, named, bob, client_for):
    now = datetime.now(zone)
    since = hour_of(now) // 1 - 1

    def shape(hour, weeks_ago):  # Solar Leads' agents talk 1:10 longer; the floor's AHT too
        if weeks_ago == 0 and hour >= since:
            return slot(40, aht=380, k1=(4, 370))
        return None

    write(rows(zone, now, until=hour_of(now), shape=shape))
    # Roof Care: two calls a slot, 5:00 on the weeks before, 5:20 (inside its band) today.
    start = at(zone, since) - timedelta(days=28)
    calls = [
        CompletedCall(
            call_id=f"k2-{day}-{n}",
            agent_id="b1",
            campaign_id="k2",
            outcome="completed",
            duration_s=320 if day == 28 else 300,
            completed_at=start + timedelta(days=day, minutes=5 + n),
        )
        for day in (0, 7, 14, 21, 28)
        for n in range(2)
    ]
    CompletedCall.objects.bulk_create(calls)
    what = evaluate(at(zone, since + 0.25) + timedelta(seconds=6), [], PLANS)
    hh = f"{int(since):02d}:00"
    aht = changed(what, "aht")
    assert aht["sentence"] == f"Average handle time 5:00 → 6:20 since {hh}"
    first, second = aht["causes"]
    # Solar Leads: 4 calls × 70 s; Roof Care: 2 calls × 20 s, the same way.
    assert first["text"] == (
        "average handle time on Solar Leads up 1:10 (6:10 against a normal 5:00, 4 calls)"
    )
    assert (first["share"], first["link"]) == (88, "/campaigns/k1/")
    assert second["text"].startswith("average handle time on Roof Care up 0:20")
    assert (second["share"], second["link"]) == (12, "/campaigns/k2/")
    own = changed(what, "campaign:k1:aht")
    assert own["sentence"] == f"Average handle time on Solar Leads 5:00 → 6:10 since {hh}"
    assert own["where"] == "above its own normal band 4:30 – 5:30"
    assert own["link"] == "/campaigns/k1/"
    assert all(x["key"] != "campaign:k2:aht" for x in what["changes"])  # inside its band

    # The day's page says the same, each cause linked to its campaign.
    html = page(client_for(bob), f"/normal/day/{now:%Y-%m-%d}/")
    biggest = html.split("Biggest changes")[1].split("</section>")[0]
    assert (
        '<a href="/campaigns/k1/">average handle time on Solar Leads up 1:10 (6:10 against '
        "a normal 5:00, 4 calls)</a> (88% of the change)"
    ) in biggest
    own_link = f'<a href="/campaigns/k1/">Average handle time on Solar Leads 5:00 → 6:10 since {hh}'
    assert own_link in biggest


def test_a_small_queues_bumps_are_its_noise_and_a_real_rise_is_not(zone, named):
    """A queue offered a call or so a slot: three is within its noise (a count's band is
    at least 3 calls, two of its deviations either side), twelve is a change; a service
    level on fewer than ten calls a slot judges nothing."""
    now = datetime.now(zone)
    since = hour_of(now) // 1 - 1
    write(rows(zone, now, until=hour_of(now)))

    def tiny(offered_today: int):
        QueueSlot.objects.filter(queue_id="q-tiny").delete()
        made = []
        for weeks_ago in (0, 1, 2, 3, 4):
            midnight = at(zone, 0) - timedelta(days=7 * weeks_ago)
            for n in range(int(since * 4) + 4):
                late = weeks_ago == 0 and n >= since * 4
                offered = offered_today if late else 1
                made.append(
                    QueueSlot(
                        queue_id="q-tiny",
                        start=midnight + timedelta(minutes=15 * n),
                        open=True,
                        offered=offered,
                        answered=offered,
                        within_target=0 if late else offered,
                    )
                )
        QueueSlot.objects.bulk_create(made)
        plans = {**PLANS, "q-tiny": {"name": "Tiny", "goal_pct": None}}
        what = evaluate(at(zone, since + 0.25) + timedelta(seconds=6), [], plans)
        return {x["key"]: x for x in what["changes"]}

    quiet = tiny(3)
    assert not [k for k in quiet if k.startswith("queue:q-tiny:")], list(quiet)
    loud = tiny(12)
    assert loud["queue:q-tiny:offered"]["sentence"].startswith("Tiny queue calls offered 1 → 12")
    # 12 answered, none within target; but a call a slot the weeks before gave its service
    # level no normal to judge it by.
    assert "queue:q-tiny:service_level" not in loud


def test_the_live_view_shows_the_queues_own_change_linked(sim_factory, tmp_path):
    """Served against the simulated tenant: the bridge works it out and the live view's
    panel (as the feed keeps it for every page's first paint) shows the queue's own change,
    linked to the queue, and the campaign's, linked to the campaign."""
    zone_name = f"Etc/GMT{-((11 - datetime.now(UTC).hour + 12) % 24 - 12):+d}"
    zone = ZoneInfo(zone_name)
    now = datetime.now(zone)
    surge = now.hour - 1

    def shape(hour, weeks_ago):
        return slot(80, sl=(12, 20), sales=60) if weeks_ago == 0 and hour >= surge else None

    sim = sim_factory("--seed", "3", "--agents", "20", "--zone", zone_name)
    database = tmp_path / "dashboard.sqlite3"
    migrated_sqlite(database, {"bob": "supervisor"})
    whole = now.hour + now.minute // 15 / 4
    write_sqlite(database, rows(zone, now, until=whole, shape=shape))
    server = start_dashboard(sim, tmp_path, {"TIME_ZONE": zone_name, "NORMAL_EVAL_S": "1"})
    try:
        client = server.signed_in_client("bob")

        def panel():
            html = unescape(" ".join(client.get("/").text.split()))
            return html.split('id="changed"', 1)[1].split("</section>", 1)[0]

        shown = wait_until(lambda: "queue:q-sales:offered" in (got := panel()) and got, 60, panel)
        since = f"{surge:02d}:00"
        # The rows name a queue the tenant does not list (its own are others) by its id.
        queue = f'<a href="/queues/{SALES}/">{SALES} queue calls offered 20 → 60 since {since}'
        assert queue in shown
        assert f'<a href="/campaigns/k1/">k1 dial attempts 20 → 40 since {since}' in shown
    finally:
        server.stop()
