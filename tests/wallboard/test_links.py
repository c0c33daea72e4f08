"""Managers create, list and revoke kiosk links on /wallboards/; nobody else can."""

import re
from datetime import timedelta

from django.test import Client
from django.utils import timezone

from dashboard.testing.links import make_link
from dashboard.wallboard.models import KioskLink

FORM = {
    "name": "Sales floor TV",
    "panels": ["kpis", "agents", "alerts"],
    "rotation_s": "20",
}


def future(days=7):
    return (timezone.localtime() + timedelta(days=days)).strftime("%Y-%m-%dT%H:%M")


def test_it_keeps_link_management_for_managers(alice, bob, carol, client):
    link = make_link()
    assert client.get("/wallboards/").status_code == 302  # signed out: to the sign-in page
    for user in (bob, carol):
        client.force_login(user)
        assert client.get("/wallboards/").status_code == 403
        assert client.post("/wallboards/", {**FORM, "expires_at": future()}).status_code == 403
        assert client.post(f"/wallboards/{link.pk}/revoke/").status_code == 403
    assert KioskLink.objects.count() == 1
    link.refresh_from_db()
    assert link.revoked_at is None
    client.force_login(alice)
    r = client.get("/wallboards/")
    assert r.status_code == 200 and b"Sales floor TV" in r.content


def test_it_shows_managers_the_link_in_the_navigation(alice, bob, client):
    client.force_login(alice)
    assert b'href="/wallboards/"' in client.get("/").content
    client.force_login(bob)
    assert b'href="/wallboards/"' not in client.get("/").content


def test_it_creates_a_link_and_shows_its_address_once(alice, client_for):
    client = client_for(alice)
    r = client.post("/wallboards/", {**FORM, "expires_at": future()})
    assert r.status_code == 200
    link = KioskLink.objects.get()
    assert (link.name, link.panels, link.rotation_s) == (FORM["name"], FORM["panels"], 20)
    assert link.created_by == alice and link.state == KioskLink.ACTIVE
    url = re.search(rb'id="new-link-url"[^>]*value="([^"]+)"', r.content).group(1).decode()
    assert url == f"http://testserver/wallboard/{link.token}/"
    assert Client().get(url.removeprefix("http://testserver")).status_code == 200  # no sign-in
    assert link.token.encode() not in client.get("/wallboards/").content  # only that once


def test_it_keeps_the_panels_in_screen_order(alice, client_for):
    client = client_for(alice)
    client.post("/wallboards/", {**FORM, "panels": ["alerts", "kpis"], "expires_at": future()})
    assert KioskLink.objects.get().panels == ["kpis", "alerts"]


def test_it_refuses_a_link_that_makes_no_sense(alice, client_for):
    client = client_for(alice)
    cases = [
        {**FORM, "expires_at": future(days=-1)},  # already expired
        {**FORM, "expires_at": future(days=400)},  # over a year
        {**FORM, "expires_at": "not a time"},
        {**FORM, "panels": [], "expires_at": future()},
        {**FORM, "panels": ["kpis", "transcripts"], "expires_at": future()},
        {**FORM, "rotation_s": "1", "expires_at": future()},
        {**FORM, "rotation_s": "100000", "expires_at": future()},
        {**FORM, "name": "", "expires_at": future()},
    ]
    for data in cases:
        r = client.post("/wallboards/", data)
        assert r.status_code == 200 and b'class="alert"' in r.content, data
    assert KioskLink.objects.count() == 0


def test_it_needs_the_csrf_token_to_create_or_revoke(alice):
    link = make_link()
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.post("/wallboards/", {**FORM, "expires_at": future()}).status_code == 403
    assert client.post(f"/wallboards/{link.pk}/revoke/").status_code == 403
    assert KioskLink.objects.count() == 1
    link.refresh_from_db()
    assert link.revoked_at is None
    page = client.get("/wallboards/")
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page.content).group(1)
    r = client.post(f"/wallboards/{link.pk}/revoke/", {"csrfmiddlewaretoken": token.decode()})
    assert r.status_code == 302
    link.refresh_from_db()
    assert link.revoked_at is not None


def test_it_revokes_a_link_and_lists_its_state(alice, client_for):
    client = client_for(alice)
    active, revoked = make_link("Front desk"), make_link("Old TV")
    make_link("Last quarter", expires_in=timedelta(seconds=-1))
    client.post(f"/wallboards/{revoked.pk}/revoke/")
    assert client.get(f"/wallboards/{revoked.pk}/revoke/").status_code == 405
    assert client.post("/wallboards/999/revoke/").status_code == 404
    page = client.get("/wallboards/").content.decode()
    states = {
        name.strip(): state
        for name, state in re.findall(r"<td>([^<]+)<div.*?status-(\w+)", page, re.S)
    }
    assert states == {"Front desk": "active", "Old TV": "revoked", "Last quarter": "expired"}
    assert f"/wallboards/{active.pk}/revoke/" in page
    assert f"/wallboards/{revoked.pk}/revoke/" not in page  # nothing left to revoke
