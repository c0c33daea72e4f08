"""The queues against the simulated tenant: each queue judged by its own target and goal,
a closed queue's minutes left out of its service level, the floor's figure weighted by the
calls each queue was offered, the day per 15 minutes and the ring group, as pages and CSV."""

import html

from dashboard.testing.browsers import sign_in
from dashboard.testing.inbound import csv_rows, truth
from dashboard.testing.processes import wait_until

CALLS = [{"wait_s": w, "outcome": "answered"} for w in (5, 15, 25)] + [
    {"wait_s": 3, "outcome": "abandoned"},
    {"wait_s": 40, "outcome": "abandoned"},
]


def expected_sl(today: dict) -> float:
    counted = today["answered"] + today["abandoned"] - today["abandoned_within_5s"]
    return round(100 * today["answered_within_target"] / counted, 1)


def row_of(client, name, **wanted):
    """The queue's CSV row once it shows what is wanted."""

    def check():
        row = next((r for r in csv_rows(client, "/queues/") if r["Queue"] == name), None)
        return row if row and all(row[k] == v for k, v in wanted.items()) else None

    return wait_until(check, 30, f"{name} showing {wanted}")


SL = "Service level % (within target ÷ answered + abandoned − short, open minutes)"


def test_the_same_waits_give_each_queue_its_own_service_level(served):
    sim, server = served
    client = server.signed_in_client("bob")
    row_of(client, "Billing", Offered="0")
    for name in ("Customer Service", "Billing"):
        sim.control("inbound-calls", queue=name, calls=CALLS)
    queues = {q["name"]: q for q in truth(sim)["queues"]}
    service, billing = queues["Customer Service"], queues["Billing"]
    assert expected_sl(service["today"]) == 50.0 and expected_sl(billing["today"]) == 25.0
    shown = row_of(client, "Customer Service", Offered="5", **{SL: "50.0"})
    assert (shown["Answered"], shown["Abandoned (5 s or more)"]) == ("3", "1")
    assert shown["Short abandons (under 5 s)"] == "1" and shown["Target (s)"] == "20"
    shown = row_of(client, "Billing", Offered="5", **{SL: "25.0"})
    assert shown["Target (s)"] == "10" and shown["Goal %"] == "90"

    page = client.get("/queues/").text
    assert 'data-meets="no"' in page and "goal 80% in 20 s" in page and "goal 90% in 10 s" in page
    # The floor: the queues' own levels weighted by calls offered, (50×5 + 25×5) ÷ 10.
    assert '<strong id="floor-sl">37.5%</strong>' in page

    day = csv_rows(client, f"/queues/{service['id']}/")
    assert sum(int(r["Offered"]) for r in day) == 5
    assert [r["Service level % (open minutes)"] for r in day if r["Offered"] != "0"] == ["50.0"]
    page = client.get(f"/queues/{service['id']}/").text
    for agent_id in service["ring_group"]["agent_ids"]:
        assert f'href="/agents/{agent_id}/"' in page


def test_a_closed_queues_minutes_are_left_out_of_its_service_level(served):
    sim, server = served
    client = server.signed_in_client("bob")
    row_of(client, "Billing", Offered="0", Open="yes")
    sim.control("inbound-calls", queue="Billing", calls=[{"wait_s": 4, "outcome": "answered"}])
    row_of(client, "Billing", Offered="1", **{SL: "100.0"})
    sim.control("inbound-schedule", schedule="Main hours", open=False)
    row_of(client, "Billing", Open="no")
    late = [{"wait_s": 50, "outcome": "answered"}] * 3
    sim.control("inbound-calls", queue="Billing", calls=late)
    # The service counts all four calls (25%); the dashboard leaves the closed minutes out.
    billing = next(q for q in truth(sim)["queues"] if q["name"] == "Billing")
    assert expected_sl(billing["today"]) == 25.0
    shown = row_of(client, "Billing", Offered="4")
    assert shown[SL] == "100.0" and shown["Hours"].startswith("Closed")
    # The row moves with the queue's events; its slots with the next read of the service.
    wait_until(
        lambda: (
            sum(
                int(r["Offered while closed"])
                for r in csv_rows(client, f"/queues/{billing['id']}/")
            )
            == 3
        ),
        30,
        "3 calls offered while closed",
    )
    assert "Calls while closed" in client.get("/queues/").text


def test_a_service_without_the_inbound_side_hides_it_with_a_note(served):
    sim, server = served
    sim.control("missing-endpoint", path="inbound", status=404, seconds=120)
    client = server.signed_in_client("bob")
    wait_until(lambda: "does not offer inbound queues" in client.get("/queues/").text, 30)
    # The live view's service level goes back to the one threshold for every call.
    wait_until(lambda: "inbound ≤ 20 s · today" in html.unescape(client.get("/").text), 30)
    assert client.get("/voicemail/").status_code == 200
    sim.control("missing-endpoint", path="voicemail-messages", status=405, seconds=120)
    wait_until(lambda: "does not offer voicemail" in client.get("/voicemail/").text, 30)
    assert "Mark handled" not in client.get("/voicemail/").text


def test_a_holiday_closes_a_queue_all_day_and_says_which(served):
    sim, server = served
    client = server.signed_in_client("bob")
    sim.control("inbound-schedule", schedule="Sales hours", open=None, holiday="Boxing Day")
    shown = row_of(client, "Sales", Hours="Closed · Boxing Day")
    assert shown["Open"] == "no"
    assert "Closed · Boxing Day" in client.get("/queues/").text


def test_the_queues_sort_in_chromium_and_follow_pushes(served, browser):
    sim, server = served
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        sign_in(page, server, "bob")
        page.goto(f"{server.url}/queues/")
        sim.control("inbound-schedule", schedule="Sales hours", open=True)
        page.wait_for_selector('#queues-table tr[data-name="sales"][data-open="1"]')
        sim.control("inbound-calls", queue="Billing", calls=[{"wait_s": 1, "outcome": "answered"}])
        sim.control("inbound-calls", queue="Sales", calls=[{"wait_s": 99, "outcome": "answered"}])
        page.wait_for_selector('#queues-table tr[data-name="billing"][data-sl="100.0"]')
        page.wait_for_selector('#queues-table tr[data-name="sales"][data-sl="0.0"]')
        page.click('button.sort[data-key="sl"]')
        order = lambda: page.eval_on_selector_all(  # noqa: E731
            "#queues-table tbody tr", "rows => rows.map(r => r.dataset.name)"
        )
        assert order() == ["customer service", "sales", "billing"]  # no calls (-1) first
        assert "sort=sl" in page.url
        page.click('button.sort[data-key="sl"]')
        assert order() == ["billing", "sales", "customer service"]
        assert page.get_attribute('th:has(button[data-key="sl"])', "aria-sort") == "descending"
        # A push re-sorts: Customer Service's first call, answered in time, puts it on top.
        sim.control(
            "inbound-calls", queue="Customer Service", calls=[{"wait_s": 2, "outcome": "answered"}]
        )
        page.wait_for_selector('#queues-table tr[data-name="customer service"][data-sl="100.0"]')
        wait_until(lambda: order()[-1] == "sales", 10)
    finally:
        page.close()
