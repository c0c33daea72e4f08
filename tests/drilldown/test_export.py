"""The agent's and the call's pages' lists as CSV: `?format=csv&table=` on the page's URL."""

import pytest

from dashboard.quality.models import ComplianceResult
from dashboard.testing.agent_day import AGENT, a_day
from dashboard.testing.downloads import csv_rows

pytestmark = pytest.mark.django_db


def test_the_agents_lists_download_as_csv(midday, no_service, client_for, bob):
    a_day()
    client = client_for(bob)
    page = client.get(f"/agents/{AGENT}/").content.decode()
    for table in ("calls", "scorecards", "failures", "alerts"):
        assert f'href="?format=csv&amp;table={table}"' in page
    calls = csv_rows(client.get(f"/agents/{AGENT}/?format=csv&table=calls"))
    assert calls[0][:3] == ["Started", "Ended", "Call id"]
    assert [row[2] for row in calls[1:]] == ["k1"]  # today's only, merged: not yesterday's k0
    assert calls[1][6:8] == ["sale", "300"] and calls[1][8:12] == ["50", "100", "1", "1"]
    cards = csv_rows(client.get(f"/agents/{AGENT}/?format=csv&table=scorecards"))
    assert sorted(row[3] for row in cards[1:]) == ["50", "80"]
    failures = csv_rows(client.get(f"/agents/{AGENT}/?format=csv&table=failures"))
    assert [row[1:3] for row in failures[1:]] == [["recording_disclosure", "no"]]
    alerts = csv_rows(client.get(f"/agents/{AGENT}/?format=csv&table=alerts"))
    assert sorted(row[4] for row in alerts[1:]) == ["open", "resolved"]


def test_the_calls_lists_download_as_csv_safe_from_formulas(no_service, client_for, bob):
    a_day()
    ComplianceResult.objects.filter(check_id="c0").update(details="=HYPERLINK(1)")
    client = client_for(bob)
    assert 'href="?format=csv&amp;table=checks"' in client.get("/calls/k1/").content.decode()
    checks = csv_rows(client.get("/calls/k1/?format=csv&table=checks"))
    assert checks[0] == ["Checked", "Rule", "Passed", "Call id", "Agent id", "Details"]
    assert sorted(row[5] for row in checks[1:]) == ["", "'=HYPERLINK(1)"]
    alerts = csv_rows(client.get("/calls/k1/?format=csv&table=alerts"))
    assert [row[5] for row in alerts[1:]] == ["Held for 4 minutes"]


def test_an_unknown_table_is_a_clear_error_and_the_lists_need_the_pages_role(
    no_service, client_for, bob, carol
):
    a_day()
    refused = client_for(bob).get(f"/agents/{AGENT}/?format=csv&table=everything")
    assert refused.status_code == 400
    assert "choose table= one of: calls, scorecards, failures, alerts" in refused.content.decode()
    assert client_for(bob).get("/calls/k1/?format=csv").status_code == 400
    assert client_for(carol).get(f"/agents/{AGENT}/?format=csv&table=calls").status_code == 403
