"""The call's page and its recording: the facts from the service and what the dashboard
received, the transcript, QA, checks, alerts, the appointment; a recording's address only
when asked for; 404 for calls nobody here knows; what it says when the service fails."""

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from dashboard.drilldown.models import CallSeen
from dashboard.quality.models import (
    Appointment,
    CoachingAlert,
    CompletedCall,
    ComplianceResult,
    Scorecard,
)
from dashboard.shared.cache_keys import NAMES_KEY

pytestmark = pytest.mark.django_db


def page_text(response) -> str:
    return " ".join(response.content.decode().split())


def held(call_id="k1", agent_id="ag-1"):
    """What the dashboard received about a call: events, webhooks and their records."""
    now = timezone.now()
    CallSeen.objects.create(
        call_id=call_id,
        agent_id=agent_id,
        direction="inbound",
        started_at=now - timedelta(minutes=6),
        ended_at=now - timedelta(minutes=1),
        outcome="sale",
        duration_s=300,
    )
    CompletedCall.objects.create(
        call_id=call_id,
        agent_id=agent_id,
        outcome="sale",
        duration_s=300,
        completed_at=now,
        transcript="Agent: Hello.\nCustomer: Call me on •••0123.",
    )
    Scorecard.objects.create(
        scorecard_id="s1",
        call_id=call_id,
        agent_id=agent_id,
        score=15,
        max_score=20,
        passed=True,
        scored_at=now,
    )
    ComplianceResult.objects.create(
        check_id="c1",
        call_id=call_id,
        agent_id=agent_id,
        rule="recording_disclosure",
        passed=False,
        details="Required statement not detected",
        checked_at=now,
    )
    CoachingAlert.objects.create(
        alert_id="al-1",
        agent_id=agent_id,
        call_id=call_id,
        kind="negative_sentiment",
        severity="warning",
        message="Customer upset",
        raised_at=now,
    )
    Appointment.objects.create(
        appointment_id="ap-1",
        call_id=call_id,
        agent_id=agent_id,
        starts_at=now + timedelta(days=2),
        booked_at=now,
    )
    cache.set(NAMES_KEY, {agent_id: "Ava Patel"})


def test_it_shows_what_the_dashboard_received_and_says_what_it_could_not_fetch(
    no_service, client_for, bob
):
    held()
    r = client_for(bob).get("/calls/k1/")
    page = page_text(r)
    assert r.status_code == 200
    assert '<a href="/agents/ag-1/"><bdi>Ava Patel</bdi></a>' in page
    assert "Inbound" in page and "Sale" in page and "5:00" in page
    assert "From the call_completed webhook, live events." in page
    assert "Agent: Hello.<br>Customer: Call me on •••0123." in page
    assert "15 / 20" in page and "✓ Pass" in page
    assert "Recording disclosure" in page and "Required statement not detected" in page
    assert "Negative sentiment" in page and "Customer upset" in page
    assert "booked" in page
    assert "Could not fetch — The call&#x27;s record from the service" in page
    assert 'id="play-recording"' in page  # the service may still have one: ask on a press


def test_it_shows_the_services_record_with_no_recording_address_before_play(
    service, client_for, bob
):
    made = service.control("webhook", event="call_completed")["data"]
    page = page_text(client_for(bob).get(f"/calls/{made['call_id']}/"))
    assert "From the service&#x27;s record." in page
    assert "Outbound" in page and "Callback" in page and "2:00" in page
    assert 'id="play-recording"' in page and 'data-ask="/calls/' in page
    assert "/media/" not in page and "sig=" not in page and "<audio" in page
    assert 'src="' not in page.split("<audio", 1)[1].split(">", 1)[0]


def test_the_recording_is_asked_for_on_a_post_and_never_kept(service, client_for, bob):
    made = service.control("webhook", event="call_completed")["data"]
    asked = service.stats()["recordings"]["asked"]
    r = client_for(bob).post(f"/calls/{made['call_id']}/recording/")
    assert r.status_code == 200 and r["Cache-Control"].startswith("max-age=0")
    assert "no-store" in r["Cache-Control"]
    answer = r.json()
    assert answer["url"].startswith(service.auth_url + "/media/recordings/")
    assert answer["expires_at"]
    assert service.stats()["recordings"]["asked"] == asked + 1
    assert client_for(bob).get(f"/calls/{made['call_id']}/recording/").status_code == 405
    missing = client_for(bob).post("/calls/no-such-call/recording/")
    assert missing.status_code == 404 and "no recording" in missing.json()["error"]


def test_only_supervisors_and_managers_get_transcripts_and_recordings(
    no_service, client_for, carol
):
    held()
    assert client_for(carol).get("/calls/k1/").status_code == 403
    assert client_for(carol).post("/calls/k1/recording/").status_code == 403
    signed_out = Client().post("/calls/k1/recording/")
    assert signed_out.status_code == 302 and signed_out["Location"].startswith("/accounts/login/")


def test_an_unknown_or_foreign_call_is_a_404_page(service, client_for, bob):
    foreign = service.sign_in(service.email_b)["access_token"]
    since = (timezone.now() - timedelta(hours=1)).isoformat()
    rows = []
    while not rows:  # organisation B's floor places calls too
        rows = service.get("/calls", foreign, since=since).json()["data"]
    for call_id in ("no-such-call", rows[0]["id"]):
        r = client_for(bob).get(f"/calls/{call_id}/")
        assert r.status_code == 404 and "No such call" in r.content.decode()


def test_a_call_nobody_could_be_asked_about_says_so(no_service, client_for, bob):
    r = client_for(bob).get("/calls/k9/")
    page = page_text(r)
    assert r.status_code == 200  # unknown only to the dashboard: the service may know it
    assert "Nothing received about this call yet." in page and "Could not fetch" in page
    answer = client_for(bob).post("/calls/k9/recording/")
    assert answer.status_code == 502 and answer.json()["error"].startswith("The recording: ")


def test_pages_allow_media_from_the_services_origin_and_nowhere_else(client_for, bob, settings):
    csp = client_for(bob).get("/search/")["Content-Security-Policy"]
    media = [d for d in csp.split(";") if d.strip().startswith("media-src")]
    origin = settings.UPSTREAM_BASE_URL.rsplit("/api", 1)[0]
    assert [d.split() for d in media] == [["media-src", origin]]
