"""The QA and coaching tables downloaded as CSV (`?format=csv`), with the page's filters,
and made safe for spreadsheets."""

from datetime import timedelta

from django.utils import timezone

from dashboard.quality.models import CoachingAlert, ComplianceResult, Scorecard
from dashboard.testing.downloads import csv_rows


def alert(n, severity, kind, agent, message, ago_min=0):
    return CoachingAlert.objects.create(
        alert_id=f"al-{n}",
        agent_id=agent,
        call_id=f"call-{n}",
        kind=kind,
        severity=severity,
        message=message,
        raised_at=timezone.now() - timedelta(minutes=ago_min),
    )


def test_coaching_alerts_download_with_the_filters_on_screen_and_no_formulas(alice, client_for):
    client = client_for(alice)
    alert(1, "critical", "long_hold", "ag-1", '=HYPERLINK("http://x","win")', ago_min=2)
    alert(2, "critical", "long_hold", "ag-1", "+1 held", ago_min=1)
    alert(3, "info", "script_deviation", "ag-2", "fine")
    alert(4, "critical", "long_hold", "ag-2", "@SUM(A1)")
    page = client.get("/coaching/?severity=critical&agent=ag-1")
    assert b'href="?severity=critical&amp;agent=ag-1&amp;format=csv"' in page.content
    rows = csv_rows(client.get("/coaching/?severity=critical&agent=ag-1&format=csv"))
    assert rows[0] == [
        "Raised", "Severity", "Kind", "Agent id", "Agent", "Call id", "Status", "Message"
    ]  # fmt: skip
    assert [(r[5], r[7]) for r in rows[1:]] == [
        ("call-2", "'+1 held"),  # newest first, as on the page
        ("call-1", '\'=HYPERLINK("http://x","win")'),
    ]
    assert rows[1][0].endswith("+00:00") and rows[1][6] == "open"
    everything = csv_rows(client.get("/coaching/?format=csv"))
    assert len(everything) == 5 and everything[1][7] == "'@SUM(A1)"


def test_coaching_export_is_for_managers_only(bob, carol, client):
    for user in (bob, carol):
        client.force_login(user)
        assert client.get("/coaching/?format=csv").status_code == 403


def test_qa_tables_download_whole_by_agent_template_and_rule(bob, carol, client):
    now = timezone.now()
    for i, (agent, score, passed) in enumerate(
        [("ag-1", 90, True), ("ag-1", 50, False), ("-ag-2", 80, True)]
    ):
        Scorecard.objects.create(
            scorecard_id=f"s{i}",
            agent_id=agent,
            template_id="tpl-1",
            score=score,
            max_score=100,
            passed=passed,
            scored_at=now,
        )
    for i, rule in enumerate(["dnc_check", "dnc_check", "disclosure"]):
        ComplianceResult.objects.create(check_id=f"h{i}", rule=rule, passed=False, checked_at=now)
    ComplianceResult.objects.create(check_id="ok", rule="disclosure", passed=True, checked_at=now)
    client.force_login(carol)
    assert client.get("/qa/?format=csv&table=by_agent").status_code == 403
    client.force_login(bob)
    page = client.get("/qa/").content
    for table in ("by_agent", "by_template", "failures"):
        assert f'href="?format=csv&amp;table={table}"'.encode() in page
    by_agent = csv_rows(client.get("/qa/?format=csv&table=by_agent"))
    assert by_agent == [
        ["Agent id", "Agent", "Scorecards", "Average QA score %", "Passed", "Pass rate %"],
        ["ag-1", "ag-1…", "2", "70.0", "1", "50.0"],
        ["'-ag-2", "'-ag-2…", "1", "80.0", "1", "100.0"],  # no formula, even from an id
    ]
    by_template = csv_rows(client.get("/qa/?format=csv&table=by_template"))
    assert by_template[1] == ["tpl-1", "tpl-1…", "3", "73.3", "2", "66.7"]
    failures = csv_rows(client.get("/qa/?format=csv&table=failures"))
    assert failures == [["Rule", "Failed checks"], ["dnc_check", "2"], ["disclosure", "1"]]
    nonsense = client.get("/qa/?format=csv&table=secrets")
    assert nonsense.status_code == 400 and b"by_agent, by_template, failures" in nonsense.content
