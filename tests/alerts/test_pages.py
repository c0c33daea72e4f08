"""The alerts pages through Django's test client: the Managers' rules form and its errors,
who may see what, acknowledging from the tray (CSRF enforced), the tray in every page."""

import importlib
import json
import re
from html import unescape

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.apps import apps
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from dashboard.accounts.models import Preferences
from dashboard.alerts import members, tray
from dashboard.alerts.models import Alert, Rule
from dashboard.shared.cache_keys import AGENT_TEAMS_KEY
from dashboard.testing.sockets import following, socket_for

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


def test_the_product_ships_default_rules_fitted_to_a_real_floor(db, settings):
    """Today's thresholds for queues and service level; the rules about agents grouped by
    team: members are the agents whose tiles are red, a third of a team is an alarm, a
    group clears after five quiet minutes (docs/alerts.md, Defaults)."""
    # The data migrations' own steps (a transactional test before may have flushed its rows).
    importlib.import_module("dashboard.alerts.migrations.0002_default_rules").add(apps, None)
    importlib.import_module("dashboard.alerts.migrations.0003_grouped_agent_alerts").fit(apps, None)
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
        rule = rules[metric]
        assert (rule.warn, rule.alarm, rule.alarm_share_pct, rule.hold_s, rule.clear_s) == (
            t[f"{name}_alarm_s"],
            None,
            33,
            0,
            300,
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


def test_limits_are_written_and_read_as_durations_and_percentages(alice, client_for):
    """`10:00`, `80%`: never 600.0 or 80.0, on the rules page, in its form, in the admin."""
    client = client_for(alice)
    paused = {
        **GOOD,
        "name": "Long breaks",
        "metric": "agent_paused",
        "scope": "all",
        "scope_value": "",
        "warn": "10:00",
        "alarm": "1:00:00",
        "alarm_share_pct": "33",
    }
    assert client.post("/alerts/rules/", paused).status_code == 302
    level = {**GOOD, "name": "SL", "metric": "service_level", "scope": "all", "scope_value": ""}
    assert client.post("/alerts/rules/", {**level, "warn": "80%", "alarm": "70"}).status_code == 302
    rule, sl = Rule.objects.get(name="Long breaks"), Rule.objects.get(name="SL")
    assert (rule.warn, rule.alarm, rule.alarm_share_pct, sl.warn, sl.alarm) == (
        600,
        3600,
        33,
        80,
        70,
    )
    page = client.get("/alerts/rules/").content.decode()
    row = re.search(rf'<tr id="rule-{rule.pk}">(.*?)</tr>', page, re.S).group(1)
    cells = [c.strip() for c in re.findall(r'<td class="num">\s*([^<]*)', row)]
    assert cells[:2] == ["10:00", "1:00:00"] and "a team's alarm at 33% of a team" in row
    assert cells[2] == "30&nbsp;s / 10&nbsp;s"  # a number never wraps apart from its unit
    row = re.search(rf'<tr id="rule-{sl.pk}">(.*?)</tr>', page, re.S).group(1)
    assert [c.strip() for c in re.findall(r'<td class="num">\s*([^<]*)', row)][:2] == [
        "80%",
        "70%",
    ]
    main = re.search(r"<main.*?</main>", page, re.S).group(0)  # not the scripts' config
    assert not re.search(r"\b\d+\.0\b", main)
    form = client.get(f"/alerts/rules/{rule.pk}/").content.decode()
    assert 'name="warn" value="10:00"' in form and 'name="alarm" value="1:00:00"' in form
    admin = client.get("/admin/alerts/rule/").content.decode()
    assert ">10:00<" in admin and ">80%<" in admin and "600.0" not in admin


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
        (
            {"warn": "abc"},
            "warn",
            "“Longest wait in a queue” takes a duration like 0:20 or 10:00 (or seconds).",
        ),
        ({"warn": "1:75"}, "warn", "Write a duration as 1:30 or 1:05:00."),
        (
            {"metric": "calls_waiting", "warn": "1:30", "alarm": ""},
            "warn",
            "“Calls waiting in a queue” takes a number of calls.",
        ),
        (
            {"alarm_share_pct": "30"},
            "alarm_share_pct",
            "Only rules about agents raise a team's alert.",
        ),
        (
            {"metric": "agent_paused", "scope": "all", "scope_value": "", "alarm_share_pct": "130"},
            "alarm_share_pct",
            "A share of a team: more than 0, at most 100.",
        ),
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
    """Many may be open: the tray (sent to every page on each change) lists the first
    `tray.SHOWN`, alarms before warnings and the newest first, and links to them all; the
    wallboards' banner still flashes every tile."""
    cache.delete(AGENT_TEAMS_KEY)  # about no team: only the first `SHOWN` are listed
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


def group_alert(rule, team, members, **fields):
    """A team's group alert as the engine writes it."""
    return open_alert(
        rule,
        **{
            "subject": f"team:{team}",
            "subject_label": f"team {team}",
            "url": "",
            "level": "warn",
            "value": len(members),
            "limit": 40,
            "text": f"Warning: Ringing too long: {len(members)} of 20 agents in team {team}.",
            "members": [[m, f"Agent {m}"] for m in members],
            "of": 20,
            **fields,
        },
    )


def test_a_group_alerts_page_lists_its_agents(bob, client_for):
    rule = Rule.objects.create(name="Ringing too long", metric="agent_ringing", warn=40)
    alert = group_alert(rule, "Support", ["a1", "a7"])
    page = client_for(bob).get(f"/alerts/{alert.pk}/").content.decode()
    assert re.findall(r'<li data-agent="(\w+)">\s*<a href="/agents/(\w+)/">', page) == [
        ("a1", "a1"),
        ("a7", "a7"),
    ]
    assert "2 agents" in re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", page))
    assert f'ws-connect="/ws/alerts/{alert.pk}/"' in page
    assert client_for(bob).get("/alerts/999999/").status_code == 404


@pytest.mark.django_db(transaction=True)
async def test_a_group_pages_socket_sends_its_list_and_each_change_of_it(bob):
    await sync_to_async(cache.clear)()
    rule = await sync_to_async(Rule.objects.create)(
        name="Ringing too long", metric="agent_ringing", warn=40
    )
    alert = await sync_to_async(group_alert)(rule, "Support", ["a1"])
    other = await sync_to_async(group_alert)(rule, "Sales", ["b1"])
    lists = await sync_to_async(members.render_all)()
    await sync_to_async(members.store)(lists)
    ws = await socket_for(bob, f"/ws/alerts/{alert.pk}/")
    assert (await ws.connect())[0]
    got = ""
    while 'id="alert-members"' not in got:
        got = await ws.receive_from(timeout=2)
    assert 'data-agent="a1"' in got and "b1" not in got
    await following(members.GROUP)
    alert.members = [["a1", "Ann"], ["a2", "Bo"]]
    await sync_to_async(alert.save)()
    lists = await sync_to_async(members.render_all)()
    layer = get_channel_layer()
    await layer.group_send(members.GROUP, {"type": "alert.members", "lists": lists})
    got = await ws.receive_from(timeout=2)
    assert 'data-agent="a1"' in got and 'data-agent="a2"' in got
    other.members = [["b1", "Cy"], ["b2", "Di"]]  # another group's change: not sent here
    await sync_to_async(other.save)()
    lists = await sync_to_async(members.render_all)()
    await layer.group_send(members.GROUP, {"type": "alert.members", "lists": lists})
    assert await ws.receive_nothing(timeout=0.5)
    del lists[str(alert.pk)]  # cleared
    await layer.group_send(members.GROUP, {"type": "alert.members", "lists": lists})
    assert "This alert is cleared" in await ws.receive_from(timeout=2)
    await ws.disconnect()


def test_a_supervisors_tray_carries_each_of_their_teams_groups(bob, client_for):
    """More open than the tray lists: every team's groups are in it all the same, with their
    team, which the page's script puts first for a person of that team (the browser test
    checks the order a person sees)."""
    cache.delete(AGENT_TEAMS_KEY)
    wait = Rule.objects.create(name="Wait", metric="longest_wait", warn=60)
    start = timezone.now()
    queues = [
        open_alert(
            wait, subject=f"queue:q{i}", level="alarm", raised_at=start + timezone.timedelta(i)
        )
        for i in range(tray.SHOWN + 2)
    ]
    ringing = Rule.objects.create(name="Ringing too long", metric="agent_ringing", warn=40)
    mine = group_alert(ringing, "Support", ["a1", "a2"], raised_at=start)
    Preferences.objects.create(user=bob, teams=["Support"])
    tray.publish()
    page = client_for(bob).get("/qa/").content.decode()
    listed = [int(i) for i in re.findall(r'class="alert-entry" data-id="(\d+)"', page)]
    assert mine.pk in listed and len(listed) == tray.SHOWN + 1
    assert set(listed) - {mine.pk} <= {q.pk for q in queues}
    assert re.search(rf'data-id="{mine.pk}" data-team="Support" data-level="warn"', page)
    by_team = re.search(r'data-by-team="([^"]*)"', page).group(1)
    assert json.loads(unescape(by_team)) == {"Support": [1, 0]}
