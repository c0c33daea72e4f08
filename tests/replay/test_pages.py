"""/replay/ and its frames over HTTP: who may see them, the moment in the URL, the floor."""

import re
from datetime import timedelta
from urllib.parse import quote

import pytest

from dashboard.replay.recorder import write
from dashboard.testing.feeds import T0, Events
from dashboard.testing.replay import a_morning, live


@pytest.fixture
def recorded(db):
    _, recorder, _ = live(a_morning(Events()))
    write(recorder.items, recorder.states.take())


def at(seconds: float) -> str:
    return quote((T0 + timedelta(seconds=seconds)).isoformat())


def test_signed_out_people_are_sent_to_sign_in_and_wallboard_viewers_refused(client, carol):
    for url in ("/replay/", "/replay/moment/"):
        r = client.get(url)
        assert r.status_code == 302 and r["Location"].startswith("/accounts/login/")
    client.force_login(carol)
    assert client.get("/replay/").status_code == 403
    assert client.get("/replay/moment/").status_code == 403


def test_before_anything_is_recorded_the_page_says_so(client_for, bob):
    r = client_for(bob).get("/replay/")
    assert r.status_code == 200 and b"Nothing has been recorded yet" in r.content
    assert client_for(bob).get("/replay/moment/").status_code == 404


def test_the_page_shows_the_floor_at_the_moment_in_its_url(client_for, bob, recorded):
    page = client_for(bob).get(f"/replay/?at={at(20)}").content.decode()
    assert 'data-live-at="2026-11-23T09:00:20+00:00"' in page
    assert re.search(r'id="agent-a1"[^>]*data-state="on_call"[^>]*data-since="[^"]*:14[.Z]', page)
    assert re.search(r'id="agent-a2"[^>]*data-state="on_call"[^>]*data-since="[^"]*:16[.Z]', page)
    assert 'id="call-k1"' in page and 'id="call-k2"' in page
    assert 'id="kpis"' in page and 'id="queues-list"' in page
    assert 'type="range"' in page and "Back to live" in page
    assert 'id="replay-previous"' in page and 'href="/"' in page
    latest = client_for(bob).get("/replay/").content.decode()  # no moment: the last recorded
    assert 'data-live-at="2026-11-23T09:00:38+00:00"' in latest
    assert 'id="call-k1"' not in latest


def test_a_frame_is_the_floor_at_a_moment_with_the_changes_around_it(client_for, alice, recorded):
    frame = client_for(alice).get(f"/replay/moment/?at={at(12)}").json()
    assert frame["at"] == "2026-11-23T09:00:12+00:00"
    assert frame["previous"] == "2026-11-23T09:00:10+00:00"
    assert frame["next"] == "2026-11-23T09:00:14+00:00"
    assert 'id="agent-a1"' in frame["html"] and 'id="call-k1"' in frame["html"]
    assert frame["note"] == ""
    early = client_for(alice).get(f"/replay/moment/?at={at(-3600)}").json()
    assert early["at"] == "2026-11-23T09:00:00+00:00"  # kept within what was recorded


@pytest.mark.parametrize("moment", ["9999-99-99T99:99", "2026-11-23T09:00+99:00"])
def test_a_moment_that_does_not_exist_is_refused_with_a_sentence(client_for, bob, recorded, moment):
    for path in ("/replay/", "/replay/moment/"):
        r = client_for(bob).get(path, {"at": moment})
        assert r.status_code == 400
        assert r.content.decode() == "?at= is not a moment that exists: use YYYY-MM-DDTHH:MM:SS"
