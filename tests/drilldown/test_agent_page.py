"""The agent's page: the agent now, today's states and figures, today's calls, QA,
compliance, coaching and notes, from what the dashboard holds and what the service adds."""

import re

import pytest
from django.core.cache import cache
from django.test import Client

from dashboard.drilldown import tiles
from dashboard.drilldown.models import Note
from dashboard.shared.cache_keys import NAMES_KEY
from dashboard.testing.agent_day import AGENT, a_day

pytestmark = pytest.mark.django_db


def page_text(response) -> str:
    return " ".join(response.content.decode().split())  # as one line


def test_it_shows_the_agents_day_from_what_the_dashboard_holds(midday, no_service, client_for, bob):
    a_day()
    Note.objects.create(agent_id=AGENT, author=bob, text="Strong closer.\nNeeds a headset.")
    page = page_text(client_for(bob).get(f"/agents/{AGENT}/"))
    assert "<bdi>Ava Patel</bdi>" in page
    # today: busy 370 s (ringing 10, talk 300, wrap 60) ÷ 370 + available 3230 s
    assert "10.3%" in page and "busy 6:10" in page and "available 53:50" in page
    assert re.search(
        r"Avg handle time</button> </div> <div class=\"value\">6:00<", page
    )  # (300+60) ÷ 1
    assert re.search(r"Calls handled</button> </div> <div class=\"value\">1<", page)
    # the timeline: from 00:00 (offline since yesterday) to now, one rect per state held
    assert len(re.findall(r'<rect class="seg seg-\w+" x=', page)) == 7
    assert 'class="seg seg-offline" x="0"' in page
    # today's calls: k1 (events and webhook merged), not yesterday's k0
    assert 'href="/calls/k1/"' in page and 'href="/calls/k0/"' not in page
    assert "QA 50/100 ✗" in page and "1 failed check" in page and "1 alert" in page
    assert "average 65.0% · pass rate 50.0% · 2 scored" in page
    assert "Recording disclosure" in page and "Required statement not detected" in page
    assert "1 in all" in page
    assert "Long hold" in page and "Held for 4 minutes" in page and "1 open · 1 resolved" in page
    assert "“Talked it through”" in page
    assert "Strong closer.<br>Needs a headset." in page and "bob ·" in page
    assert "Could not fetch — Today&#x27;s calls from the service" in page  # and says so


def test_it_shows_the_agent_now_as_the_live_feed_last_rendered_it(no_service, client_for, bob):
    a_day()
    tile = '<div id="agent-ag-1" class="agent" data-state="on_call">Ava on a call</div>'
    cache.set(tiles.tile_key(AGENT), tile)
    page = client_for(bob).get(f"/agents/{AGENT}/").content.decode()
    assert tile in page
    assert 'ws-connect="/ws/agents/ag-1/"' in page  # and follows it live


def test_it_adds_todays_calls_only_the_service_knows(midday, service, client_for, bob):
    agent = service.agents()[5]
    made = service.control("webhook", event="call_completed", agent_id=agent["agentId"])["data"]
    cache.set(NAMES_KEY, {agent["agentId"]: agent["name"]})
    page = page_text(client_for(bob).get(f"/agents/{agent['agentId']}/"))
    assert f'href="/calls/{made["call_id"]}/"' in page  # from GET /calls?agent_id=&since=
    assert "Callback" in page and "2:00" in page
    assert "Could not fetch" not in page


def test_an_unknown_or_foreign_agent_is_a_404_page(service, client_for, bob):
    a_day()
    foreign = service.sign_in(service.email_b)["access_token"]
    theirs = service.get("/agent-status", foreign).json()[0]["agentId"]
    for agent_id in ("no-such-agent", theirs):
        r = client_for(bob).get(f"/agents/{agent_id}/")
        assert r.status_code == 404
        assert "No such agent" in r.content.decode()


def test_it_is_for_supervisors_and_managers_only(no_service, client_for, alice, bob, carol):
    a_day()
    assert client_for(carol).get(f"/agents/{AGENT}/").status_code == 403
    assert Client().get(f"/agents/{AGENT}/")["Location"].startswith("/accounts/login/")
    for person in (bob, alice):
        assert client_for(person).get(f"/agents/{AGENT}/").status_code == 200


def test_notes_are_added_and_changed_by_their_author_only(no_service, client_for, alice, bob):
    a_day()
    r = client_for(bob).post(f"/agents/{AGENT}/notes/", {"text": "  Good with upset callers  "})
    assert r.status_code == 302 and r["Location"] == f"/agents/{AGENT}/#notes"
    note = Note.objects.get()
    assert (note.text, note.author, note.agent_id) == ("Good with upset callers", bob, AGENT)
    page = client_for(bob).get(f"/agents/{AGENT}/").content.decode()
    assert f'action="/agents/{AGENT}/notes/{note.pk}/"' in page  # its author may edit
    assert f'action="/agents/{AGENT}/notes/{note.pk}/"' not in (
        client_for(alice).get(f"/agents/{AGENT}/").content.decode()
    )
    refused = client_for(alice).post(f"/agents/{AGENT}/notes/{note.pk}/", {"text": "Mine now"})
    assert refused.status_code == 403
    client_for(bob).post(f"/agents/{AGENT}/notes/{note.pk}/", {"text": "Great with upset callers"})
    note.refresh_from_db()
    assert note.text == "Great with upset callers" and note.updated_at > note.created_at
    client_for(bob).post(f"/agents/{AGENT}/notes/", {"text": "   "})
    assert Note.objects.count() == 1  # an empty note is refused
    assert client_for(bob).get(f"/agents/{AGENT}/notes/").status_code == 405
    assert client_for(bob).post(f"/agents/{AGENT}/notes/999/", {"text": "x"}).status_code == 404


def test_the_note_forms_refuse_a_post_without_the_csrf_token(no_service, bob):
    a_day()
    note = Note.objects.create(agent_id=AGENT, author=bob, text="First")
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(bob)
    for path in (f"/agents/{AGENT}/notes/", f"/agents/{AGENT}/notes/{note.pk}/"):
        assert strict.post(path, {"text": "Forged"}).status_code == 403
    assert list(Note.objects.values_list("text", flat=True)) == ["First"]


def test_each_figure_of_the_agents_day_explains_itself(midday, no_service, client_for, bob):
    a_day()
    page = page_text(client_for(bob).get(f"/agents/{AGENT}/"))
    for key in ("agent_occupancy", "agent_aht", "agent_handled", "agent_timeline", "agent_qa"):
        assert f'popovertarget="why-{key}"' in page and f'id="why-{key}"' in page
    assert "busy 6:10 of 1:00:00 busy or available" in page  # 370 s busy, 3230 s available
    assert "6:00 talk and wrap-up over 1 calls handled" in page
    assert "1 passed of 2 scorecards" in page
    assert "the agent&#x27;s time ringing, on calls and in wrap-up" in page  # the doc's formula
