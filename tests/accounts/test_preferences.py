"""Each person's theme and saved views, through the pages and forms: kept per person,
POST with CSRF only, each bad input refused with a sentence saying what to change."""

import re

from django.core.cache import cache
from django.test import Client

from dashboard.accounts.models import Preferences, SavedView
from dashboard.shared.cache_keys import TEAMS_KEY
from dashboard.testing.people import make_user


def html_theme(r):
    found = re.search(rb'<html lang="en"(?: data-theme="(\w+)")?>', r.content)
    return found.group(1).decode() if found and found.group(1) else "system"


def test_the_theme_follows_the_system_until_a_person_chooses_one(bob, alice, client_for):
    client = client_for(bob)
    r = client.get("/qa/")
    assert html_theme(r) == "system"
    assert b'content="light dark"' in r.content
    r = client.post("/accounts/preferences/theme/", {"theme": "dark", "next": "/qa/"})
    assert r.status_code == 302 and r["Location"] == "/qa/"
    r = client.get("/qa/")
    assert html_theme(r) == "dark"
    assert b'<meta name="color-scheme"\n          content="dark">' in r.content
    assert Preferences.objects.get(user=bob).theme == "dark"
    assert html_theme(client_for(alice).get("/qa/")) == "system"  # per person


def test_a_bad_theme_is_refused_with_a_clear_error(bob, client_for):
    client = client_for(bob)
    r = client.post("/accounts/preferences/theme/", {"theme": "neon"})
    assert r.status_code == 400
    assert "Choose a theme: as the system, light or dark." in r.content.decode()
    r = client.post("/accounts/preferences/theme/", {"theme": "neon"}, HTTP_X_THEME_REQUEST="1")
    assert r.status_code == 400 and b"Choose a theme" in r.content
    assert not Preferences.objects.filter(user=bob).exists()


def test_the_script_gets_a_status_not_a_page(bob, client_for):
    r = client_for(bob).post(
        "/accounts/preferences/theme/", {"theme": "light"}, HTTP_X_THEME_REQUEST="1"
    )
    assert r.status_code == 204


def test_an_offsite_next_is_not_followed(bob, client_for):
    r = client_for(bob).post(
        "/accounts/preferences/theme/", {"theme": "light", "next": "https://evil.example/"}
    )
    assert r.status_code == 302 and r["Location"] == "/accounts/preferences/"


def test_settings_need_csrf_and_sign_in(bob, db):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(bob)
    assert strict.post("/accounts/preferences/theme/", {"theme": "dark"}).status_code == 403
    assert strict.post("/accounts/preferences/views/", {"name": "x"}).status_code == 403
    anonymous = Client()
    r = anonymous.post("/accounts/preferences/theme/", {"theme": "dark"})
    assert r.status_code == 302 and r["Location"].startswith("/accounts/login/")
    assert Client().get("/accounts/preferences/").status_code == 302
    roleless = Client()
    roleless.force_login(make_user("dave"))
    assert roleless.get("/accounts/preferences/").status_code == 403


def test_a_saved_view_keeps_its_filters_in_its_address_and_opens_from_the_header(
    bob, alice, client_for
):
    client = client_for(bob)
    r = client.post(
        "/accounts/preferences/views/",
        {"name": "Paused in Support", "query": "?state=paused&density=dense&team=Support"},
    )
    assert r.status_code == 302
    assert r["Location"] == "/?team=Support&state=paused&density=dense"  # one fixed order
    r = client.get("/campaigns/")
    assert re.search(
        rb'<a href="/\?team=Support&amp;state=paused&amp;density=dense"><bdi>Paused in Support',
        r.content,
    )
    assert b"Paused in Support" not in client_for(alice).get("/campaigns/").content


def test_the_live_view_offers_to_save_its_filters(bob, client_for):
    r = client_for(bob).get("/?state=paused")
    assert b'id="save-view"' in r.content
    assert b'id="view-query" value="state=paused"' in r.content
    assert b'id="save-view"' not in client_for(bob).get("/qa/").content


def test_bad_views_are_refused_with_clear_errors(bob, client_for):
    client = client_for(bob)
    SavedView.objects.create(user=bob, name="Mine", query="state=paused")
    cases = {
        ("", "state=paused"): "Give the view a name.",
        ("x" * 61, ""): "A view&#x27;s name is at most 60 characters.",
        ("mine", ""): "You already have a view named “mine”.",
        ("A", "colour=red"): "“colour” is not a filter of the live view",
        ("A", "state=paused&state=offline"): "The filter “state” is given twice.",
        ("A", "sort=random"): "“random” is not a value the filter sort takes.",
        ("A", "team=%3Cscript%3E"): "“&lt;script&gt;” is not a value the filter team takes.",
    }
    for (name, query), error in cases.items():
        r = client.post("/accounts/preferences/views/", {"name": name, "query": query})
        assert r.status_code == 400, (name, query)
        assert error in r.content.decode(), (name, query, error)
        assert b'aria-invalid="true"' in r.content
    assert SavedView.objects.filter(user=bob).count() == 1


def test_a_person_deletes_only_their_own_views(bob, alice, client_for):
    theirs = SavedView.objects.create(user=alice, name="Hers", query="")
    mine = SavedView.objects.create(user=bob, name="Mine", query="sort=time")
    client = client_for(bob)
    assert client.post(f"/accounts/preferences/views/{theirs.pk}/delete/").status_code == 404
    r = client.post(f"/accounts/preferences/views/{mine.pk}/delete/")
    assert r.status_code == 302
    assert list(SavedView.objects.values_list("name", flat=True)) == ["Hers"]
    page = client.get("/accounts/preferences/").content.decode()
    assert "No saved views yet." in page


def test_a_person_chooses_their_teams_and_keeps_them(bob, alice, client_for):
    """My floor: the teams the live floor knows (and those chosen before, though no agent
    of theirs is on now), kept per person; the live view then shows them."""
    cache.set(TEAMS_KEY, ["Sales North", "Sales West", "Support"])
    client = client_for(bob)
    page = client.get("/accounts/preferences/").content.decode()
    assert len(re.findall(r'name="teams"\s+value="[^"]+"\s*>', page)) == 3  # none checked
    r = client.post(
        "/accounts/preferences/teams/",
        {"teams": ["Support", "Sales North"], "next": "/"},
    )
    assert r.status_code == 302 and r["Location"] == "/"
    assert Preferences.objects.get(user=bob).teams == ["Sales North", "Support"]
    assert not Preferences.objects.filter(user=alice).exists()
    assert b"My floor: 2 teams" in client.get("/").content
    cache.set(TEAMS_KEY, ["Sales West"])  # no agent of theirs signed in now: still offered
    page = client.get("/accounts/preferences/").content.decode()
    assert len(re.findall(r'value="(Sales North|Support)"\s+checked', page)) == 2
    r = client.post("/accounts/preferences/teams/", {"teams": ["Nowhere"]})
    assert r.status_code == 400
    assert "“Nowhere” is not a team on the floor." in r.content.decode()
    client.post("/accounts/preferences/teams/", {})  # none: the whole floor again
    assert Preferences.objects.get(user=bob).teams == []
    assert b'<strong id="scope-label">Whole floor</strong>' in client.get("/").content


def test_a_saved_view_keeps_a_set_of_teams(bob, client_for):
    client = client_for(bob)
    r = client.post(
        "/accounts/preferences/views/",
        {"name": "Both", "query": "density=dense&teams=Support, Sales North,Support"},
    )
    assert r["Location"] == "/?teams=Sales+North%2CSupport&density=dense"
    r = client.post("/accounts/preferences/views/", {"name": "All", "query": "teams=ALL"})
    assert r["Location"] == "/?teams=all"
    page = client.get(r["Location"]).content.decode()
    assert '<a href="/?teams=Sales+North%2CSupport&amp;density=dense"><bdi>Both' in page
    assert '<strong id="scope-label">Whole floor</strong>' in page
