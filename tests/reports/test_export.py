"""The campaigns tables downloaded as CSV (`?format=csv`): the list, and a campaign's day."""

from datetime import UTC, datetime, timedelta

from asgiref.sync import async_to_sync

from dashboard.quality.models import CompletedCall
from dashboard.reports.models import CampaignSlot
from dashboard.shared import summaries
from dashboard.shared.today import start_of_today
from dashboard.testing.downloads import csv_rows
from dashboard.upstream import contract as c

CAMPAIGNS = [
    c.Campaign("k1", "=cmd|' /C calc'!A0", "active", "predictive", 400, 100, 40, 10, None),
    c.Campaign("k2", "Win-back", "paused", "ai", 50, 0, 0, 0, None),
]


def test_the_campaigns_list_downloads_as_the_page_shows_it(bob, carol, client):
    async_to_sync(summaries.store_good)("campaigns", CAMPAIGNS, datetime.now(UTC))
    client.force_login(carol)
    assert client.get("/campaigns/?format=csv").status_code == 403
    client.force_login(bob)
    assert b'href="?format=csv"' in client.get("/campaigns/").content
    rows = csv_rows(client.get("/campaigns/?format=csv"))
    assert rows[0][:3] == ["Campaign id", "Campaign", "Status"]
    assert rows[1] == [
        "k1", "'=cmd|' /C calc'!A0", "active", "predictive", "400", "100", "25.0", "40",
        "40.0", "10", "25.0",
    ]  # fmt: skip
    assert rows[2][6:] == ["0.0", "0", "", "0", ""]  # no rate without a denominator


def test_a_campaigns_day_downloads_its_slots_and_its_outcome_mix(bob, client_for):
    async_to_sync(summaries.store_good)("campaigns", CAMPAIGNS, datetime.now(UTC))
    today = start_of_today()
    CampaignSlot.objects.create(campaign_id="k1", start=today, dialed=20, connected=7, booked=1)
    CampaignSlot.objects.create(campaign_id="k2", start=today, dialed=99)
    CampaignSlot.objects.create(campaign_id="k1", start=today - timedelta(days=1), dialed=5)
    for n, outcome in enumerate(["sale", "callback", "sale"]):
        CompletedCall.objects.create(
            call_id=f"x{n}", campaign_id="k1", outcome=outcome, duration_s=60, completed_at=today
        )
    client = client_for(bob)
    page = client.get("/campaigns/k1/").content
    assert b'href="?format=csv&amp;table=slots"' in page
    assert b'href="?format=csv&amp;table=outcomes"' in page
    slots = csv_rows(client.get("/campaigns/k1/?format=csv"))
    start = today.isoformat(timespec="seconds")
    assert slots == [
        ["Slot start", "Dial attempts", "Connects", "Appointments"],
        [start, "20", "7", "1"],
    ]
    outcomes = csv_rows(client.get("/campaigns/k1/?format=csv&table=outcomes"))
    assert outcomes == [
        ["Outcome", "Completed calls", "Share %"],
        ["sale", "2", "66.7"],
        ["callback", "1", "33.3"],
    ]
    assert client.get("/campaigns/nope/?format=csv").status_code == 404
    assert client.get("/campaigns/k1/?format=csv&table=x").status_code == 400
