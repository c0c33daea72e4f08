"""The header's search, and the links to the agent and call pages everywhere a person sees
an agent or a call (never on a wallboard's own panels)."""

from datetime import UTC, datetime

import pytest
from django.core.cache import cache
from django.utils import timezone

from dashboard.drilldown.models import CallSeen
from dashboard.live.render import Renderer
from dashboard.live.state import LiveState
from dashboard.quality.models import CoachingAlert, Scorecard
from dashboard.shared.cache_keys import NAMES_KEY
from dashboard.testing.feeds import Events

pytestmark = pytest.mark.django_db
NAMES = {"a1": "Ava Patel", "a2": "Avery Smith", "b1": "Ben Okafor"}


@pytest.fixture
def known_names_and_calls():
    cache.set(NAMES_KEY, NAMES)
    CallSeen.objects.create(call_id="call-7f3a-0001", agent_id="a1", started_at=timezone.now())
    CallSeen.objects.create(call_id="call-7f3a-0002", agent_id="a2", started_at=timezone.now())


def test_the_header_has_the_search_box_for_supervisors_and_managers(client_for, bob, carol):
    assert 'action="/search/"' in client_for(bob).get("/qa/").content.decode()
    assert 'action="/search/"' not in client_for(carol).get("/").content.decode()
    assert client_for(carol).get("/search/?q=ava").status_code == 403


def test_one_match_goes_to_its_page_and_several_make_a_list(
    known_names_and_calls, no_service, client_for, bob
):
    client = client_for(bob)
    assert client.get("/search/?q=ben")["Location"] == "/agents/b1/"
    assert client.get("/search/?q=call-7f3a-0002")["Location"] == "/calls/call-7f3a-0002/"
    both = client.get("/search/?q=Av").content.decode()
    assert 'href="/agents/a1/"' in both and 'href="/agents/a2/"' in both
    calls = client.get("/search/?q=call-7f3a").content.decode()
    assert 'href="/calls/call-7f3a-0001/"' in calls and 'href="/calls/call-7f3a-0002/"' in calls
    none = client.get("/search/?q=zed+nobody").content.decode()
    assert "No agent or call matches" in none and "Could not fetch" not in none  # not an id


def test_a_call_only_the_service_knows_is_found_by_its_id(service, client_for, bob):
    made = service.control("webhook", event="call_completed")["data"]["call_id"]
    r = client_for(bob).get(f"/search/?q={made}")
    assert r["Location"] == f"/calls/{made}/"
    missing = client_for(bob).get("/search/?q=no-such-call").content.decode()
    assert "No agent or call matches" in missing and "Could not fetch" not in missing


def test_a_search_the_service_cannot_answer_says_so(no_service, client_for, bob):
    page = client_for(bob).get("/search/?q=k-unknown").content.decode()
    assert "No agent or call matches" in page and "Could not fetch" in page


def test_live_tiles_and_call_rows_link_to_the_agent_and_call_pages():
    state, events = LiveState(UTC), Events()
    state.apply(events.agent(0, "a1", "available"))
    state.apply(events.started(1, "k1", "a1"))
    state.apply(events.agent(2, "a1", "ringing", call_id="k1"))
    render = Renderer()
    tile = render.agent(state, state.agents["a1"])
    assert 'class="name" href="/agents/a1/"' in tile and 'class="call" href="/calls/k1/"' in tile
    row = render.call(state, state.calls["k1"])
    assert 'href="/calls/k1/"' in row and 'href="/agents/a1/"' in row


def test_an_id_no_page_can_have_renders_without_breaking_the_live_feed():
    state, events = LiveState(UTC), Events()
    state.apply(events.agent(0, "a/1", "available"))
    assert 'class="name" href=""' in Renderer().agent(state, state.agents["a/1"])


def test_qa_and_coaching_tables_link_agents_and_calls(client_for, alice):
    cache.set(NAMES_KEY, NAMES)
    Scorecard.objects.create(
        scorecard_id="s1",
        call_id="k1",
        agent_id="a1",
        score=9,
        max_score=10,
        passed=True,
        scored_at=datetime.now(UTC),
    )
    CoachingAlert.objects.create(
        alert_id="al-1",
        agent_id="b1",
        call_id="k2",
        kind="long_hold",
        severity="critical",
        raised_at=datetime.now(UTC),
    )
    qa = client_for(alice).get("/qa/").content.decode()
    assert '<a href="/agents/a1/"><bdi>Ava Patel</bdi></a>' in qa  # recent scorecards
    assert 'href="/calls/k1/"' in qa
    assert qa.count('href="/agents/a1/"') == 2  # and in the table by agent
    coaching = client_for(alice).get("/coaching/").content.decode()
    assert '<a href="/agents/b1/"><bdi>Ben Okafor</bdi></a>' in coaching
    assert 'href="/calls/k2/"' in coaching
