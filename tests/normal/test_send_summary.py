"""A Manager sends a kept day's summary to the alert chat webhook from its page, at once:
a POST with its CSRF token, signed and logged with the alerts' posts like the one sent
after midnight, and the page says whether the chat took it. With no webhook configured
the page says so and nothing is sent; a Supervisor may not send; what is not a date or a
day not kept gets a sentence and a 4xx."""

import json
from datetime import datetime
from html import unescape

import pytest
from django.test import Client

from dashboard.alerts.models import AlertDelivery
from dashboard.alerts.notify import sign
from dashboard.testing.normal_days import rows, write
from dashboard.testing.receiver import Receiver

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def kept(zone, role_groups):
    """Four normal weeks and today's morning: today is a day kept."""
    now = datetime.now(zone)
    write(rows(zone, now, until=now.hour + now.minute / 60))
    return f"{now:%Y-%m-%d}"


@pytest.fixture
def receiver(settings):
    chat = Receiver()
    settings.ALERT_WEBHOOK_URL, settings.ALERT_WEBHOOK_SECRET = chat.url, "chat-secret"
    yield chat
    chat.close()


def signed_in(user) -> Client:
    """A browser's client: CSRF checked, the token taken from the page as a form would."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def text(response) -> str:
    return unescape(" ".join(response.content.decode().split()))


def token(client, day: str) -> str:
    page = client.get(f"/normal/day/{day}/")
    assert page.status_code == 200
    return page.context["csrf_token"]


def test_a_manager_sends_the_day_now_signed_and_logged(kept, receiver, alice):
    client = signed_in(alice)
    page = text(client.get(f"/normal/day/{kept}/"))
    assert "Send to the alert chat now</button>" in page and "disabled" not in page
    sent = client.post(
        f"/normal/day/{kept}/send/", {"csrfmiddlewaretoken": token(client, kept)}, follow=True
    )
    assert sent.redirect_chain == [(f"/normal/day/{kept}/", 302)]
    day = datetime.fromisoformat(kept)
    assert f"The summary of {day:%a %d %b %Y} was sent to the chat." in text(sent)
    [(headers, body)] = receiver.received
    assert headers["x-dashboard-signature"] == sign("chat-secret", body)
    posted = json.loads(body)
    assert (posted["transition"], posted["day"]) == ("summary", kept)
    assert posted["text"].startswith(f"{day:%a %d %b %Y} against its normal.")
    assert posted["url"].endswith(f"/normal/day/{kept}/")
    logged = AlertDelivery.objects.get()
    assert (logged.alert_id, logged.transition, logged.delivered) == (None, "summary", True)


def test_a_chat_that_refuses_it_is_said_so(kept, receiver, alice):
    receiver.statuses = [500, 503]
    client = signed_in(alice)
    sent = client.post(
        f"/normal/day/{kept}/send/", {"csrfmiddlewaretoken": token(client, kept)}, follow=True
    )
    day = datetime.fromisoformat(kept)
    assert (
        f"The chat webhook did not take the summary of {day:%a %d %b %Y}; the alerts' "
        "delivery log says what it answered."
    ) in text(sent)
    assert len(receiver.received) == 2
    logged = AlertDelivery.objects.get()
    assert not logged.delivered and logged.attempts == 2
    assert logged.error.endswith("answered 503; given up")  # no next POST to carry it into


def test_without_a_webhook_it_says_so_and_sends_nothing(kept, settings, alice):
    settings.ALERT_WEBHOOK_URL = ""
    client = signed_in(alice)
    page = text(client.get(f"/normal/day/{kept}/"))
    assert "No alert chat webhook is configured (ALERT_WEBHOOK_URL)" in page
    sent = client.post(
        f"/normal/day/{kept}/send/", {"csrfmiddlewaretoken": token(client, kept)}, follow=True
    )
    assert (
        "No alert chat webhook is configured (ALERT_WEBHOOK_URL), so the summary was not sent."
    ) in text(sent)
    assert not AlertDelivery.objects.exists()


def test_only_a_managers_post_with_its_token_sends(kept, receiver, alice, bob):
    supervisor = signed_in(bob)
    assert "Send to the alert chat now" not in text(supervisor.get(f"/normal/day/{kept}/"))
    refused = supervisor.post(
        f"/normal/day/{kept}/send/", {"csrfmiddlewaretoken": token(supervisor, kept)}
    )
    assert refused.status_code == 403
    manager = signed_in(alice)
    assert manager.post(f"/normal/day/{kept}/send/").status_code == 403  # no CSRF token
    assert manager.get(f"/normal/day/{kept}/send/").status_code == 405
    assert receiver.received == []


def test_a_wrong_date_or_a_day_not_kept_gets_a_sentence(kept, receiver, alice):
    client = signed_in(alice)
    csrf = {"csrfmiddlewaretoken": token(client, kept)}
    wrong = client.post("/normal/day/2026-13-01/send/", csrf)
    assert wrong.status_code == 400
    assert "“2026-13-01” is not a date: write it as YYYY-MM-DD" in text(wrong)
    missing = client.post("/normal/day/2020-02-03/send/", csrf)
    assert missing.status_code == 404
    assert "The dashboard keeps no 15-minute slots of Mon 03 Feb 2020." in text(missing)
    assert receiver.received == []
