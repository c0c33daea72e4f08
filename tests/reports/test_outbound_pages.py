"""A campaign's outbound panels and the campaigns list's new columns, fed from the
summaries cache as the refresher leaves it: the dialer queue's runway, callbacks, pending
bookings (marked handled by a Manager), the AI dialer, and a group the service lacks."""

from datetime import UTC, datetime, timedelta

import pytest
from asgiref.sync import async_to_sync
from django.core.cache import cache
from django.test import Client

from dashboard.reports import outbound
from dashboard.reports.models import HandledBooking
from dashboard.shared import summaries
from dashboard.shared.cache_keys import NAMES_KEY
from dashboard.shared.today import start_of_today
from dashboard.upstream import contract as c

PHONE_TAIL = "0123"


def store():
    """Two campaigns as the refresher would leave them: k1 dials 6 contacts a minute with 30
    pending (5 minutes of leads), k2 (AI, paused) dials nothing. Times are the test's own."""
    now = datetime.now(UTC)
    k1 = c.Campaign("k1", "Solar <Leads>", "active", "predictive", 400, 160, 40, 10, now)
    k2 = c.Campaign("k2", "Reminders", "paused", "ai", 900, 400, 100, 9, now)
    save = async_to_sync(summaries.store_good)
    save("campaigns", [k1, k2], now)
    for ago, dialed in ((10, 100), (0, 160)):  # two pulls, 10 minutes apart
        at = now - timedelta(minutes=ago)
        async_to_sync(outbound.record_dialing)(
            [c.Campaign("k1", "", "", "", 400, dialed, 0, 0, None), k2], at
        )
    save(
        "dialer_queue",
        [
            c.DialerQueue("k1", 30, 5, 2, now + timedelta(minutes=9)),
            c.DialerQueue("k2", 500, 0, 0, None),
        ],
        now,
    )
    callback = lambda n, due, status, campaign="k1": c.Callback(  # noqa: E731
        f"cb{n}", campaign, "a1", f"Contact {n}", PHONE_TAIL, due, status
    )
    save(
        "callbacks",
        [
            callback(1, now + timedelta(minutes=20), "scheduled"),
            callback(2, now - timedelta(minutes=5), "due"),
            callback(3, max(now - timedelta(minutes=1), start_of_today()), "missed"),
            callback(4, start_of_today() - timedelta(hours=1), "missed"),  # yesterday
            callback(5, now - timedelta(minutes=30), "done"),
            callback(6, now + timedelta(minutes=10), "scheduled", "k2"),
        ],
        now,
    )
    save(
        "pending_bookings",
        [
            c.PendingBooking("pb1", "call1", "k2", "Alex Byrne", "No free slot", now),
            c.PendingBooking("pb2", "call2", "k2", "Sam Reid", "Address unclear", now),
        ],
        now,
    )
    save("ai_dialer", [c.AiDialerCampaign("k2", False, 0, 6)], now)
    cache.set(NAMES_KEY, {"a1": "Ava Patel"})


def one_line(response) -> str:
    return " ".join(response.content.decode().split())


def test_it_shows_the_queue_with_its_runway_and_warns_under_an_hour(bob, client_for):
    store()
    page = one_line(client_for(bob).get("/campaigns/k1/"))
    assert '<div class="label">Pending leads</div><div class="value">30</div>' in page
    assert '<div class="label">Retry scheduled</div><div class="value">5</div>' in page
    assert '<div class="label">Exhausted</div><div class="value">2</div>' in page
    assert 'data-low="yes" role="alert"><strong>Under an hour:</strong>' in page
    assert "run out in about <strong>5 min</strong> at 6.0 contacts dialed a minute" in page
    assert "over the last 10 min" in page
    assert outbound.leads_runway_min("k1") == 5.0  # the alert engine's metric, the same
    paused = one_line(client_for(bob).get("/campaigns/k2/"))
    assert "Not dialing: the campaign is paused, its pending leads wait." in paused
    assert 'data-low="no"' in paused and outbound.leads_runway_min("k2") is None


def test_it_lists_callbacks_due_within_the_hour_and_missed_today_with_four_digits(bob, client_for):
    store()
    page = one_line(client_for(bob).get("/campaigns/k1/"))
    due = page.split("Due in the next hour")[1].split("Missed today")[0]
    missed = page.split("Missed today")[1].split("Pending bookings")[0]
    assert due.index("Contact 2") < due.index("Contact 1")  # soonest (overdue) first
    assert "Contact 3" not in due and "Contact 5" not in due and "Contact 6" not in due
    assert "Contact 3" in missed and "Contact 4" not in missed  # yesterday's is not today's
    assert "<bdi>Ava Patel</bdi>" in due and f"•••• {PHONE_TAIL}" in due
    assert outbound.callbacks_missed_today("k1") == 1


def test_it_shows_pending_bookings_and_the_ai_dialer_of_an_ai_campaign(bob, client_for):
    store()
    page = one_line(client_for(bob).get("/campaigns/k2/"))
    assert "<bdi>Alex Byrne</bdi></td><td><bdi>No free slot</bdi>" in page
    assert 'Concurrent AI calls</div><div class="value">0 <span class="muted small">of 6' in page
    assert "the AI dialer is not dialing" in page
    assert 'id="ai-dialer"' not in one_line(client_for(bob).get("/campaigns/k1/"))  # not AI


def test_supervisors_see_no_controls_and_managers_do(alice, bob, client_for):
    store()
    supervisor = one_line(client_for(bob).get("/campaigns/k1/"))
    assert "data-confirm" not in supervisor and '<dialog id="confirm"' not in supervisor
    assert "Mark handled" not in one_line(client_for(bob).get("/campaigns/k2/"))
    manager = one_line(client_for(alice).get("/campaigns/k1/"))
    assert 'data-action="/campaigns/k1/stop" data-title="Stop “Solar &lt;Leads&gt;”?"' in manager
    assert 'data-text="It is active now.' in manager and ">Stop…</button>" in manager
    assert '<dialog id="confirm"' in manager and 'name="csrfmiddlewaretoken"' in manager
    paused = one_line(client_for(alice).get("/campaigns/k2/"))
    assert 'data-action="/campaigns/k2/start"' in paused and "It is paused now." in paused
    assert 'data-action="/campaigns/k2/bookings/pb1/handled"' in paused


def test_the_list_has_sortable_pending_leads_and_callbacks_due(bob, client_for):
    store()
    page = one_line(client_for(bob).get("/campaigns/"))
    assert 'data-key="pending" data-numeric' in page and 'data-key="callbacks" data-numeric' in page
    assert 'data-pending="30" data-callbacks="2"' in page
    assert 'data-pending="500" data-callbacks="1"' in page
    assert '<span class="badge badge-low"' in page.split('data-pending="500"')[0]


def test_a_group_the_service_lacks_hides_its_panel_with_a_note_and_the_rest_works(
    alice, client_for
):
    store()
    async_to_sync(summaries.store_not_offered)("callbacks", datetime.now(UTC))
    async_to_sync(summaries.store_not_offered)("ai_dialer", datetime.now(UTC))
    page = one_line(client_for(alice).get("/campaigns/k2/"))
    assert "This service does not offer callbacks." in page and "Due in the next hour" not in page
    assert "This service does not offer AI dialer figures." in page
    assert "Pending leads" in page and "Alex Byrne" in page and "Stop…" not in page
    listing = one_line(client_for(alice).get("/campaigns/"))
    assert 'data-key="callbacks"' not in listing and 'data-key="pending"' in listing
    assert "This service does not offer callbacks." in listing
    assert summaries.load("callbacks")["stale"] is False  # not a failure


def test_a_manager_marks_a_pending_booking_handled_with_a_note(alice, client_for):
    store()
    client = client_for(alice)
    path = "/campaigns/k2/bookings/pb1/handled"
    refused = client.post(path, {"note": "  "}, follow=True)
    assert "needs a note" in refused.content.decode() and not HandledBooking.objects.exists()
    done = client.post(path, {"note": "Booked by phone for Tuesday"}, follow=True)
    assert "The booking is marked as handled." in done.content.decode()
    page = one_line(client.get("/campaigns/k2/"))
    assert "Handled by alice at" in page and "“<bdi>Booked by phone for Tuesday</bdi>”" in page
    assert 'data-action="/campaigns/k2/bookings/pb1/handled"' not in page  # no button left
    again = client.post(path, {"note": "twice"}, follow=True)
    assert "already marked as handled" in again.content.decode()
    unknown = client.post("/campaigns/k1/bookings/pb2/handled", {"note": "n"}, follow=True)
    assert "not among the campaign&#x27;s pending bookings" in unknown.content.decode()
    assert list(HandledBooking.objects.values_list("booking_id", "note", "by__username")) == [
        ("pb1", "Booked by phone for Tuesday", "alice")
    ]


def test_marking_handled_needs_a_manager_a_post_and_the_csrf_token(alice, bob, client, client_for):
    store()
    path = "/campaigns/k2/bookings/pb1/handled"
    assert client.post(path, {"note": "n"})["Location"].startswith("/accounts/login/")
    assert client_for(bob).post(path, {"note": "n"}).status_code == 403
    assert client_for(alice).get(path).status_code == 405
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(alice)
    assert strict.post(path, {"note": "n"}).status_code == 403
    assert not HandledBooking.objects.exists()


@pytest.mark.parametrize(
    ("samples", "rate"),
    [
        ([], None),
        ([(0, 10)], None),
        ([(0, 10), (5, 40)], 6.0),
        ([(0, 10), (2, 12), (5, 40)], 6.0),  # oldest to newest of the window
    ],
)
def test_the_dial_rate_is_the_counters_growth_over_the_window(samples, rate):
    t0 = datetime(2026, 11, 23, 9, tzinfo=UTC)
    got = outbound.dial_rate([(t0 + timedelta(minutes=m), n) for m, n in samples])
    assert (got and got.per_min) == rate


@pytest.mark.parametrize(
    ("pending", "per_min", "dialing", "runway"),
    [
        (30, 6.0, True, 5.0),  # pending ÷ dial rate
        (0, 6.0, True, 0.0),  # run out
        (0, None, False, 0.0),  # run out, even when stopped
        (30, 6.0, False, None),  # stopped: the leads wait
        (30, 0.0, True, None),  # nothing dialed over the window
        (30, None, True, None),  # no rate yet
    ],
)
def test_the_runway_is_pending_leads_over_the_dial_rate(pending, per_min, dialing, runway):
    rate = None if per_min is None else outbound.DialRate(per_min, 15.0)
    assert outbound.runway_min(pending, rate, dialing) == runway


async def test_the_dial_samples_keep_the_window_and_restart_after_a_counter_reset():
    await cache.adelete(outbound.DIALING_KEY)
    t0 = datetime(2026, 11, 23, 9, tzinfo=UTC)
    camp = lambda dialed: c.Campaign("k", "", "", "", 0, dialed, 0, 0, None)  # noqa: E731
    for minute, dialed in ((0, 10), (10, 20), (20, 30)):
        await outbound.record_dialing([camp(dialed)], t0 + timedelta(minutes=minute))
    kept = (await cache.aget(outbound.DIALING_KEY))["k"]
    assert [n for _, n in kept] == [20, 30]  # the first is older than 15 minutes
    await outbound.record_dialing([camp(3)], t0 + timedelta(minutes=21))
    assert [n for _, n in (await cache.aget(outbound.DIALING_KEY))["k"]] == [3]
