"""A day against its normal on one printable page (`/normal/day/<date>/`), from days of
known shape: today with a queue surge from a known hour lists the time and the hours
above or below, the biggest changes with their causes, and the best and worst queues and
campaigns; a normal day kept says every figure stayed in its band; a wrong date or a day
not kept gets a sentence, not a page of nothing."""

import asyncio
import json
from datetime import datetime, timedelta
from html import unescape

import pytest
from django.core.cache import cache

from dashboard.alerts.models import AlertDelivery
from dashboard.alerts.notify import Notifier, sign
from dashboard.inbound.board import BOARD_KEY
from dashboard.main.day_summary import send_day, wait_s
from dashboard.normal.summary import day_summary, text_of
from dashboard.testing.normal_days import CARE, PLANS, SALES, rows, slot, write
from dashboard.testing.processes import await_until
from dashboard.testing.receiver import Receiver


@pytest.fixture
def surged(zone, db):
    """Four normal weeks, and today a surge on the Sales queue from a whole hour ago."""
    now = datetime.now(zone)
    surge = now.hour - 1

    def shape(hour, weeks_ago):
        if weeks_ago == 0 and hour >= surge:
            return slot(80, sl=(12, 20), sales=60)
        return None

    write(rows(zone, now, until=now.hour + now.minute / 60, shape=shape))
    queues = [{"id": q, **plan} for q, plan in PLANS.items()]
    cache.set(BOARD_KEY, {"queues": queues})
    yield now, surge
    cache.delete(BOARD_KEY)


def page(client, path) -> tuple[int, str]:
    r = client.get(path)
    return r.status_code, unescape(" ".join(r.content.decode().split()))


def test_a_surge_day_on_one_page(surged, bob, client_for):
    now, surge = surged
    status, html = page(client_for(bob), f"/normal/day/{now:%Y-%m-%d}/")
    assert status == 200
    assert f"{now:%A %d %B %Y} against its normal" in html
    off = html.split("Time outside the normal band")[1].split("</table>")[0]
    row = off.split('<th scope="row">Calls offered</th>')[1].split("</tr>")[0]
    assert "<td>0:00</td>" in row and "<td>0:00</td> <td>" not in row  # above, never below
    assert f"<time>{surge:02d}:00</time> Calls completed above, Calls offered above" in html
    biggest = html.split("Biggest changes")[1].split("</ol>")[0]
    assert f"Service level 90% → 60% since {surge:02d}:00" in biggest
    assert "calls offered 100% above normal (100% of the change)" in biggest
    assert f'href="/queues/{SALES}/">Sales queue offered 60 against a normal 19.5' in biggest
    queues = html.split('id="queues-title"')[1].split("</section>")[0]
    best, worst = queues.split("<h3>Worst</h3>")
    assert f'href="/queues/{SALES}/">Sales</a>' in best  # 60% or more against 70%
    assert f'href="/queues/{CARE}/">Care</a>' in worst  # the same level, against 80%
    campaigns = html.split('id="campaigns-title"')[1].split("</section>")[0]
    assert 'href="/campaigns/k1/">k1</a>: ' in campaigns and "% above" not in campaigns


def test_the_chat_text_says_the_biggest_change_first(surged):
    now, surge = surged
    text = text_of(day_summary(now.date()))
    assert text.startswith(f"{now:%a %d %b %Y} against its normal. ")
    assert f"since {surge:02d}:00" in text and "Best queue: Sales. Worst queue: Care." in text


def test_a_normal_day_kept_stayed_in_its_band(zone, bob, client_for):
    now = datetime.now(zone)
    write(rows(zone, now, until=now.hour + now.minute / 60))
    week_ago = now - timedelta(days=7)  # its normal: the three weeks before it
    status, html = page(client_for(bob), f"/normal/day/{week_ago:%Y-%m-%d}/")
    assert status == 200 and "Every figure stayed inside its normal band." in html
    assert "(3 held)" in html and "None." in html.split("Biggest changes")[1]
    # The normal page links every day kept.
    _, today = page(client_for(bob), "/normal/")
    assert f'href="/normal/day/{week_ago:%Y-%m-%d}/"' in today


def test_a_wrong_date_or_a_day_not_kept_says_so(zone, bob, client_for):
    client = client_for(bob)
    status, html = page(client, "/normal/day/yesterday/")
    assert status == 400 and "“yesterday” is not a date: write it as YYYY-MM-DD" in html
    status, html = page(client, "/normal/day/2020-02-30/")
    assert status == 400
    status, html = page(client, "/normal/day/2020-02-03/")
    assert status == 404 and "The dashboard keeps no 15-minute slots of Mon 03 Feb 2020." in html


@pytest.mark.django_db(transaction=True)
async def test_the_end_of_a_day_posts_its_summary_to_the_chat_webhook(surged):
    """Through the alert notifier: signed, paced and logged with the alerts' posts."""
    now, surge = surged
    receiver = Receiver()
    notifier = Notifier(receiver.url, "chat-secret", min_interval=0, digest=0)
    stop = asyncio.Event()
    posting = asyncio.create_task(notifier.run(stop))
    try:
        await send_day(notifier, now.date())

        async def posted_and_logged():
            return (
                receiver.received and await AlertDelivery.objects.filter(delivered=True).aexists()
            )

        await await_until(posted_and_logged, 10, "the summary posted and logged")
    finally:
        stop.set()
        await asyncio.wait_for(posting, 5)
        receiver.close()
    [(headers, body)] = receiver.received
    assert headers["x-dashboard-signature"] == sign("chat-secret", body)
    sent = json.loads(body)
    assert sent["transition"] == "summary" and sent["day"] == f"{now:%Y-%m-%d}"
    assert sent["url"].endswith(f"/normal/day/{now:%Y-%m-%d}/")
    assert f"Service level 90% → 60% since {surge:02d}:00" in sent["text"]
    logged = await AlertDelivery.objects.aget()
    assert (logged.alert_id, logged.transition, logged.delivered) == (None, "summary", True)
    # It goes 5 minutes past the next midnight, in the organisation's zone.
    midnight = datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), now.tzinfo)
    assert wait_s(midnight - timedelta(hours=1)) == 3600 + 300
