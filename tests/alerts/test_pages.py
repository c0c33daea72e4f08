"""The alerts pages through Django's test client: the Managers' rules form and its errors,
who may see what, acknowledging from the tray (CSRF enforced), the tray in every page."""

import importlib
import json
import re
from html import unescape

import pytest
from asgiref.sync import sync_to_async
from django.apps import apps
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from dashboard.accounts.models import Preferences
from dashboard.alerts import tray
from dashboard.alerts.models import Alert, Rule
from dashboard.shared.cache_keys import AGENT_TEAMS_KEY
from dashboard.testing.sockets import socket_for

GOOD = {
    "name": "Sales wait",
    "metric": "longest_wait",
    "scope": "queue",
    "scope_value": "Sales",
    "warn": "60",
    "alarm": "120",
    "hold_s": "30",
    "clear_s": "10",
    "enabled": "on",
}


def errors(response) -> dict[str, str]:
    """The form's error messages by field, as the page shows them."""
    text = response.content.decode()
    found = re.findall(
        r'<p class="alert field-error" role="alert" data-field="(\w+)">([^<]*)</p>', text
    )
    return {field: unescape(message) for field, message in found}


def test_the_product_ships_default_rules_matching_todays_thresholds(db, settings):
    # The data migration's own step (a transactional test before may have flushed its rows).
    importlib.import_module("dashboard.alerts.migrations.0002_default_rules").add(apps, None)
    t = settings.LIVE_THRESHOLDS
    rules = {r.metric: r for r in Rule.objects.all()}
    assert (rules["longest_wait"].warn, rules["longest_wait"].alarm) == (
        t["wait_warn_s"],
        t["wait_alarm_s"],
    )
    assert (rules["service_level"].warn, rules["service_level"].alarm) == (
        t["service_level_warn_pct"],
        t["service_level_alarm_pct"],
    )
    for metric, name in (
        ("agent_ringing", "ringing"),
        ("agent_wrap_up", "wrap_up"),
        ("agent_paused", "pause"),
    ):
        assert (rules[metric].warn, rules[metric].alarm) == (
            t[f"{name}_warn_s"],
            t[f"{name}_alarm_s"],
        )
    assert {"critical_coaching", "service_down", "webhooks_failing"} <= set(rules)


def test_rules_are_for_managers(alice, bob, carol, client):
    assert client.get("/alerts/rules/").status_code == 302
    for user, status in ((carol, 403), (bob, 403), (alice, 200)):
        client.force_login(user)
        assert client.get("/alerts/rules/").status_code == status
        assert client.get("/alerts/deliveries/").status_code == status
    client.force_login(bob)
    assert client.get("/alerts/").status_code == 200


def test_a_manager_adds_a_rule(alice, client_for):
    r = client_for(alice).post("/alerts/rules/", GOOD)
    assert r.status_code == 302
    rule = Rule.objects.get(name="Sales wait")
    assert (rule.scope_value, rule.warn, rule.alarm, rule.hold_s) == ("Sales", 60, 120, 30)


def test_bad_rule_input_gets_a_clear_error_beside_its_field(alice, client_for):
    client = client_for(alice)
    cases = [
        ({"warn": "", "alarm": ""}, "warn", "Give a warning limit, an alarm limit, or both."),
        (
            {"warn": "120", "alarm": "60"},
            "alarm",
            "The alarm limit must be at or above the warning limit.",
        ),
        ({"warn": "-5"}, "warn", "A limit cannot be negative."),
        ({"scope_value": ""}, "scope_value", "Name the queue this rule watches."),
        (
            {"scope": "team", "scope_value": "Red"},
            "scope",
            "“Longest wait in a queue” can only watch everything or a queue.",
        ),
        (
            {"scope": "all", "scope_value": "Sales"},
            "scope_value",
            "Leave this empty when the rule watches everything.",
        ),
        ({"warn": "abc"}, "warn", "Enter a number."),
        ({"hold_s": "-1"}, "hold_s", "Ensure this value is greater than or equal to 0."),
        (
            {
                "metric": "service_level",
                "scope": "all",
                "scope_value": "",
                "warn": "70",
                "alarm": "80",
            },
            "alarm",
            "For “Service level today” low is bad: the alarm limit must be at or below the"
            " warning limit.",
        ),
        (
            {
                "metric": "service_level",
                "scope": "all",
                "scope_value": "",
                "warn": "170",
                "alarm": "80",
            },
            "warn",
            "Service level is a percentage: 0 to 100.",
        ),
        (
            {"metric": "nonsense"},
            "metric",
            "Select a valid choice. nonsense is not one of the available choices.",
        ),
    ]
    before = Rule.objects.count()
    for change, field, message in cases:
        r = client.post("/alerts/rules/", {**GOOD, **change})
        assert r.status_code == 400, change
        assert "The rule was not saved" in r.content.decode()
        assert errors(r).get(field) == message, (change, errors(r))
    assert Rule.objects.count() == before


def open_alert(rule, **fields):
    made = {
        "rule": rule,
        "subject": "queue:q1",
        "subject_label": "Sales queue",
        "url": "/#queue-q1",
        "level": "alarm",
        "value": 150,
        "limit": 120,
        "text": "Alarm: longest wait in Sales queue is 2:30 (limit 2:00), since 10:41.",
        "raised_at": timezone.now(),
    }
    return Alert.objects.create(**{**made, **fields})


def test_the_tray_is_on_every_signed_in_page_and_acknowledging_needs_csrf(alice, bob, carol):
    rule = Rule.objects.create(name="Wait", metric="longest_wait", warn=60, alarm=120)
    alert = open_alert(rule)
    tray.publish()
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(bob)
    page = browser.get("/qa/").content.decode()
    assert 'id="alert-tray"' in page and alert.text in page and 'data-level="alarm"' in page
    assert browser.post(f"/alerts/{alert.pk}/acknowledge/").status_code == 403  # no token
    token = browser.cookies["csrftoken"].value
    r = browser.post(
        f"/alerts/{alert.pk}/acknowledge/",
        HTTP_X_CSRFTOKEN=token,
        HTTP_X_REQUESTED_WITH="fetch",
    )
    assert r.status_code == 204
    alert.refresh_from_db()
    assert alert.acknowledged_by == bob and alert.acknowledged_at and alert.cleared_at is None
    page = browser.get("/qa/").content.decode()
    assert "Acknowledged by bob at" in page
    again = browser.post(
        f"/alerts/{alert.pk}/acknowledge/", HTTP_X_CSRFTOKEN=token, HTTP_X_REQUESTED_WITH="fetch"
    )
    assert again.status_code == 409
    viewer = Client()
    viewer.force_login(carol)
    assert viewer.post(f"/alerts/{alert.pk}/acknowledge/").status_code == 403


@pytest.mark.django_db(transaction=True)
async def test_a_socket_page_that_connects_or_resyncs_is_sent_the_tray(bob):
    """A browser that reconnects may have missed the tray's pushes: its socket sends the last
    rendered tray with the page's snapshot."""
    await sync_to_async(cache.clear)()
    rule = await sync_to_async(Rule.objects.create)(name="Wait", metric="longest_wait", warn=60)
    alert = await sync_to_async(open_alert)(rule)
    await sync_to_async(tray.publish)()
    ws = await socket_for(bob, "/ws/qa/")
    assert (await ws.connect())[0]
    first = await ws.receive_from(timeout=2)
    assert 'id="alert-tray"' in first and alert.text in first
    await ws.disconnect()


def test_alerts_default_to_my_teams_with_the_whole_floor_one_click_away(bob, client_for):
    """An alert about one agent carries the agent's team; the alerts page leaves out other
    teams' for a person with teams, and the tray (one for everyone) carries its counts per
    team, which the page's script applies."""
    cache.set(AGENT_TEAMS_KEY, {"a1": "Support", "a2": "Sales West"})
    rule = Rule.objects.create(name="Paused", metric="time_in_state", warn=60, alarm=120)
    mine = open_alert(rule, subject="agent:a1", subject_label="Ann", text="Ann paused 3:00")
    theirs = open_alert(
        rule, subject="agent:a2", subject_label="Wes", text="Wes paused 3:00", level="warn"
    )
    floor = open_alert(rule, text="Sales queue waits 2:30")
    Preferences.objects.create(user=bob, teams=["Support"])
    client = client_for(bob)
    page = client.get("/alerts/").content.decode()
    assert '<strong id="scope-label">My floor: Support</strong>' in page
    rows = re.findall(r'<tr id="alert-row-(\d+)"', page)
    assert sorted(map(int, rows)) == sorted([mine.pk, floor.pk])
    page = client.get("/alerts/?teams=all").content.decode()
    assert '<strong id="scope-label">Whole floor</strong>' in page
    rows = re.findall(r'<tr id="alert-row-(\d+)"', page)
    assert sorted(map(int, rows)) == sorted([mine.pk, theirs.pk, floor.pk])
    tray.publish()
    page = client.get("/qa/").content.decode()
    assert 'data-teams="Support"' in page  # whose alerts the tray shows (alerts.js)
    assert 'data-count="3" data-alarms="2"' in page
    by_team = re.search(r'data-by-team="([^"]*)"', page).group(1)
    assert json.loads(unescape(by_team)) == {"Sales West": [1, 0], "Support": [1, 1]}
    assert re.search(rf'data-id="{theirs.pk}" data-team="Sales West"', page)
    assert re.search(rf'data-id="{floor.pk}" data-team=""', page)


def test_the_tray_lists_the_most_severe_and_newest_first_and_counts_the_rest(bob):
    """At 1,000 agents hundreds may be open: the tray (sent to every page on each change)
    lists the first `tray.SHOWN`, alarms before warnings and the newest first, and links to
    them all; the wallboards' banner still flashes every tile."""
    rule = Rule.objects.create(name="Ringing", metric="agent_ringing", warn=20, alarm=40)
    start = timezone.now()
    made = []
    for i in range(tray.SHOWN + 5):
        made.append(
            Alert.objects.create(
                rule=rule,
                subject=f"agent:a{i}",
                subject_label=f"Agent {i}",
                level="alarm" if i in (0, 7) else "warn",
                value=25,
                limit=20,
                text=f"Warning: Agent {i} has been ringing for 0:25.",
                raised_at=start + timezone.timedelta(seconds=i),
            )
        )
    wait = Rule.objects.create(name="Wait", metric="longest_wait", warn=60)
    queue = open_alert(wait, level="warn", raised_at=start + timezone.timedelta(minutes=5))
    parts = tray.render_all()
    listed = [int(i) for i in re.findall(r'class="alert-entry" data-id="(\d+)"', parts["alerts"])]
    newest_warnings = [a.pk for a in [queue, *reversed(made)] if a.level == "warn"]
    assert listed == [made[7].pk, made[0].pk, *newest_warnings][: tray.SHOWN]
    count = tray.SHOWN + 6
    assert f'data-count="{count}" data-alarms="2"' in parts["alerts"]
    assert f"All {count} open alerts" in parts["alerts"]
    flash = unescape(re.search(r'data-flash="([^"]*)"', parts["alerts-board-agents"]).group(1))
    wait_tiles = {"#queue-q1", '#kpis [data-limit="wait"]'}
    assert set(flash.split(", ")) == {f"#agent-a{i}" for i in range(len(made))} | wait_tiles
    # Links without agents: only the queue's alert, its tile and the wait KPI to flash.
    board = parts["alerts-board"]
    assert "longest wait" in unescape(board) and "+" not in board
    assert 'data-flash="#queue-q1, #kpis [data-limit=&quot;wait&quot;]"' in board
