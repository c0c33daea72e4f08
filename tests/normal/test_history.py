"""The normal from the service's history: a dashboard started on a simulator with five
weeks behind it reads the same weekday of the last four weeks and sets today against
them; on a simulator with ten days behind it, it says there is no normal yet."""

import re
from html import unescape

import pytest

from dashboard.testing import metrics
from dashboard.testing.browsers import screenshot, sign_in
from dashboard.testing.processes import wait_until
from dashboard.testing.servers import start_dashboard
from dashboard.testing.zones import late_morning

ZONE = late_morning()
FILLING = "filling today from the service"  # what the pages say while today fills


@pytest.fixture
def dashboard_on(sim_factory, tmp_path):
    servers = []

    def start(history_days: int):
        sim = sim_factory(
            "--seed", "5", "--agents", "30", "--zone", ZONE,
            "--history-days", str(history_days),
        )  # fmt: skip
        env = {"TIME_ZONE": ZONE, "METRICS_TOKEN": metrics.TOKEN}
        server = start_dashboard(sim, tmp_path, env, people={"bob": "supervisor"})
        servers.append(server)
        # Today's slots are the fill's to write: the pages say so until it is done.
        wait_until(lambda: progress(server) == 1, 120, "today filled")
        return server, server.signed_in_client("bob")

    yield start
    for server in servers:
        server.stop()


def progress(server) -> float:
    """How far today is read from the service's history (1: done), as /metrics says."""
    return metrics.value(metrics.scrape(server.url), "dashboard_backfill_progress_ratio")


def normal_page(server, client) -> str:
    """The normal page once it no longer says today is being filled."""
    page = unescape(" ".join(client.get(f"{server.url}/normal/").text.split()))
    return "" if FILLING in page else page


def test_five_weeks_of_history_give_a_normal_of_four_weekdays(dashboard_on, page):
    server, client = dashboard_on(35)
    html = wait_until(
        lambda: (got := normal_page(server, client)) and "from 4 same weekdays" in got and got,
        120,
        lambda: normal_page(server, client)[:2000],
    )
    # The forecast sentence, with figures from the history and today so far.
    said = re.search(
        r"([\d,]+) offered by \d\d:\d\d, (on normal|\d+% (above|below) normal); "
        r"([\d,]+) expected by the end of the day \(normal ([\d,]+), from 4 same weekdays\)",
        html,
    )
    assert said, html
    offered, expected, normal = (int(said.group(n).replace(",", "")) for n in (1, 4, 5))
    assert offered > 20 and expected >= offered and normal > offered
    assert "Median of 4 same weekdays at this time" in html
    table = html.split('id="normal"')[1].split("</table>")[0]
    for figure in ("Calls offered", "Calls completed", "Occupancy"):
        row = table.split(f'<th scope="row">{figure}</th>')[1].split("</tr>")[0]
        assert re.search(r"<td>[\d,:%]+ – [\d,:%]+</td>", row), row  # a band
    # The history carries no waits: service level has no normal, and says so.
    row = table.split('<th scope="row">Service level</th>')[1].split("</tr>")[0]
    assert "<td>no normal yet</td>" in row and "No normal yet: 0 of the 3" in row
    # In Chromium: the chart draws (uPlot's canvas), with no script error.
    errors = []
    page.on("pageerror", lambda error: errors.append(error))
    sign_in(page, server, "bob")
    page.goto(f"{server.url}/normal/")
    page.wait_for_selector(".chart[data-source=chart-normal] canvas")
    assert page.locator(".chart .u-legend").inner_text().count("Normal") == 3
    screenshot(page, "normal-today")
    assert errors == []


def test_ten_days_of_history_say_there_is_no_normal_yet(dashboard_on):
    server, client = dashboard_on(10)
    page = wait_until(
        lambda: (html := normal_page(server, client)) and "holds 1 of the 3" in html and html,
        120,
        lambda: normal_page(server, client)[:2000],
    )
    assert "No normal yet: the dashboard holds 1 of the 3 same weekdays it needs." in page
    assert "No forecast yet: the normal rests on 1 same weekday(s), 3 are needed." in page
    assert "Nothing outside its normal band today." in page
