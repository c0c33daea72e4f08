"""The coaching workflow and the QA page, through HTTP and the coaching socket."""

import re
from html import unescape

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from dashboard.quality.models import CoachingAction, CoachingAlert, ComplianceResult, Scorecard
from dashboard.quality.publish import COACHING, publish_alert
from dashboard.testing.sockets import closed_with, following, socket_for


def make_alert(severity="critical", kind="long_hold", agent="ag-1", n=1):
    return CoachingAlert.objects.create(
        alert_id=f"al-{severity}-{kind}-{n}",
        agent_id=agent,
        kind=kind,
        severity=severity,
        message="Held 4 min",
        raised_at=timezone.now(),
    )


def test_it_keeps_coaching_for_managers(alice, bob, carol, client):
    assert client.get("/coaching/").status_code == 302  # signed out: to the sign-in page
    for user, status in ((bob, 403), (carol, 403), (alice, 200)):
        client.force_login(user)
        assert client.get("/coaching/").status_code == status


def test_it_refuses_coaching_actions_below_manager(bob, carol, client):
    alert = make_alert()
    for user in (bob, carol):
        client.force_login(user)
        r = client.post(f"/coaching/{alert.pk}/acknowledge/")
        assert r.status_code == 403
    alert.refresh_from_db()
    assert alert.status == "open" and not alert.actions.exists()


def test_it_acknowledges_resolves_and_reopens_with_who_and_when(alice, client_for):
    client = client_for(alice)
    alert = make_alert()
    client.post(f"/coaching/{alert.pk}/acknowledge/")
    r = client.post(f"/coaching/{alert.pk}/resolve/", {"note": ""})
    alert.refresh_from_db()
    assert alert.status == "acknowledged"  # a resolution needs its note
    client.post(f"/coaching/{alert.pk}/resolve/", {"note": "Listened back, coached on hold"})
    client.post(f"/coaching/{alert.pk}/reopen/")
    alert.refresh_from_db()
    assert alert.status == "open"
    trail = list(CoachingAction.objects.order_by("at").values_list("action", "by__username"))
    assert trail == [("acknowledge", "alice"), ("resolve", "alice"), ("reopen", "alice")]
    assert CoachingAction.objects.get(action="resolve").note == "Listened back, coached on hold"
    assert all(a.at for a in CoachingAction.objects.all())
    r = client.get("/coaching/")
    assert b"reopen by alice" in r.content


def test_it_refuses_an_action_that_does_not_fit_the_status(alice, client_for):
    client = client_for(alice)
    alert = make_alert()
    r = client.post(f"/coaching/{alert.pk}/reopen/", follow=True)
    assert b"cannot be reopened" in r.content
    assert client.post(f"/coaching/{alert.pk}/explode/").status_code == 302
    assert not CoachingAction.objects.exists()


def test_it_filters_alerts_and_ignores_nonsense(alice, client_for):
    client = client_for(alice)
    hold = f'id="alert-{make_alert("critical", "long_hold").pk}"'.encode()
    script = f'id="alert-{make_alert("info", "script_deviation", agent="ag-2").pk}"'.encode()
    r = client.get("/coaching/?severity=critical")
    assert hold in r.content and script not in r.content
    r = client.get("/coaching/?agent=ag-2&kind=script_deviation")
    assert script in r.content and hold not in r.content
    r = client.get("/coaching/?severity=%3Cscript%3E&status=' OR 1=1&agent=" + "x" * 5000)
    assert r.status_code == 200


def test_the_qa_page_summarises_by_agent_template_and_rule(bob, carol, client):
    now = timezone.now()
    for i, (score, passed) in enumerate([(90, True), (50, False)]):
        Scorecard.objects.create(
            scorecard_id=f"s{i}",
            agent_id="ag-1",
            template_id="tpl-1",
            score=score,
            max_score=100,
            passed=passed,
            scored_at=now,
        )
    ComplianceResult.objects.create(check_id="h1", rule="dnc_check", passed=False, checked_at=now)
    client.force_login(carol)
    assert client.get("/qa/").status_code == 403
    client.force_login(bob)
    r = client.get("/qa/")
    assert r.status_code == 200
    assert b"70.0%" in r.content and b"50%" in r.content  # average score, pass rate
    assert b"Dnc check" in r.content


@pytest.mark.django_db(transaction=True)
async def test_a_new_alert_reaches_a_managers_open_page(alice):
    ws = await socket_for(alice, "/ws/coaching/")
    assert (await ws.connect())[0]
    await following(COACHING)  # the socket joins after its snapshot
    alert = await sync_to_async(make_alert)()
    await sync_to_async(publish_alert)(alert, new=True)
    pushed = await ws.receive_from(timeout=2)
    # what a page gets first: the status when known, and the alert tray
    while pushed.startswith(('<div id="upstream"', '<div id="alert-tray"')):
        pushed = await ws.receive_from(timeout=2)
    assert f'id="alert-{alert.pk}"' in pushed and 'hx-swap-oob="afterbegin:#alerts-body"' in pushed
    assert "Critical" in pushed
    assert counts_text(await ws.receive_from(timeout=2)) == "1 critical open"
    await ws.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_the_open_counts_follow_a_resolve_on_every_open_page(alice, client_for):
    await sync_to_async(make_alert)("warning", n=1)
    alert = await sync_to_async(make_alert)("critical", n=2)
    client = await sync_to_async(client_for)(alice)
    page = await sync_to_async(client.get)("/coaching/")
    assert counts_text(page.content.decode()) == "1 critical · 1 warning open"
    ws = await socket_for(alice, "/ws/coaching/")
    assert (await ws.connect())[0]
    await following(COACHING)  # the socket joins after its snapshot
    await sync_to_async(client.post)(f"/coaching/{alert.pk}/resolve/", {"note": "talked"})
    pushed = await ws.receive_from(timeout=2)
    while 'id="alert-counts"' not in pushed:  # the status line, then the resolved row
        pushed = await ws.receive_from(timeout=2)
    assert counts_text(pushed) == "1 warning open"
    await ws.disconnect()


def counts_text(html: str) -> str:
    span = re.search(r'<span id="alert-counts"[^>]*>(.*?)</span>', html, re.S)
    assert span, html[:300]
    return unescape(span.group(1)).strip()


@pytest.mark.django_db(transaction=True)
async def test_the_coaching_socket_refuses_a_supervisor(bob):
    ws = await socket_for(bob, "/ws/coaching/")
    assert await closed_with(ws) == 4403
