"""The inbound side on the live view and a wallboard, against the simulated tenant: each
queue's row with its own target, service level and hours ("Closed · opens 08:00"), the
floor's service level from the queues' own targets (and its explanation saying so), and
the "Voicemail waiting · oldest N min" tile, pushed to a kiosk screen in Chromium too."""

import html
import json
import re

from dashboard.testing.inbound import truth
from dashboard.testing.links import create_link
from dashboard.testing.processes import wait_until


def test_the_live_view_shows_each_queues_target_hours_and_the_voicemail_tile(served):
    sim, server = served
    sim.control("inbound-calls", queue="Billing", calls=[{"wait_s": 30, "outcome": "answered"}])
    sim.control(
        "inbound-calls", queue="Customer Service", calls=[{"wait_s": 3, "outcome": "answered"}] * 3
    )
    sim.control("inbound-schedule", schedule="Sales hours", open=False)
    sim.control("voicemail", queue="Billing", age_s=12 * 60 + 5)
    client = server.signed_in_client("bob")
    queues = {q["name"]: q["id"] for q in truth(sim)["queues"]}

    def shown():
        page = html.unescape(" ".join(client.get("/").text.split()))
        wanted = ("Voicemail waiting", "oldest 12 min", "goal 90% in 10 s", "Closed · opens 08:00")
        return page if all(w in page for w in wanted) else None

    page = wait_until(shown, 30, "the inbound side on the live view")
    assert f'id="queue-{queues["Billing"]}"' in page
    # (0% × 1 + 100% × 3) ÷ 4 offered: each queue judged by its own target, weighted.
    assert '75%</div><div class="sub">each queue\'s own target · today' in page
    assert "Billing: 0.0% (goal 90% in 10 s), weight 1 offered while open" in page
    assert "weighted by the calls it was offered while open" in page  # its explain panel
    assert 'id="why-voicemail_waiting"' in page


def test_a_wallboard_shows_the_tile_and_the_queues_hours_live(served, browser):
    sim, server = served
    manager = server.signed_in_client("alice")
    address = create_link(manager, "Inbound TV", ["kpis", "queues"])
    page = browser.new_page(viewport={"width": 1600, "height": 900})
    try:
        page.goto(address)
        page.wait_for_selector("#kpis .kpi[data-kind=voicemail]")
        sim.control("inbound-schedule", schedule="Sales hours", open=False)
        sim.control("voicemail", queue="Sales", age_s=7 * 60 + 1)
        page.wait_for_selector("#kpi-voicemail >> text=oldest 7 min", timeout=30_000)
        # pushed into the queues panel, which the link shows on its next rotation (15 s)
        page.wait_for_selector(
            "#queues-list >> text=Closed · opens 08:00", state="attached", timeout=30_000
        )
    finally:
        page.close()


def test_the_intraday_service_level_is_the_queues_own_weighted(served):
    sim, server = served
    sim.control("inbound-calls", queue="Billing", calls=[{"wait_s": 30, "outcome": "answered"}])
    sim.control(
        "inbound-calls", queue="Customer Service", calls=[{"wait_s": 3, "outcome": "answered"}] * 3
    )
    client = server.signed_in_client("bob")
    label = "Service level % (each queue's own target)"

    def chart():
        page = client.get("/").text
        found = re.search(
            r'<script id="chart-service" type="application/json">(.*?)</script>', page
        )
        series = json.loads(found.group(1))["series"] if found else []
        levels = next((s["values"] for s in series if s["label"] == label), [])
        return page if 75.0 in levels else None  # (0% × 1 + 100% × 3) ÷ 4, in the slot

    page = html.unescape(wait_until(chart, 30, "the chart's own-target service level"))
    assert "answered within 20 s" not in page.split('id="why-src-chart-service"')[1][:600]
    assert "weighted by the calls it was offered while open; from GET" in page
