"""The live view's intraday charts against the normal: a dashboard served on days of known
shape (four same weekdays of about 40 calls a slot, today 50 a slot) draws each charted
figure's band per slot and the forecast of calls offered with its sentence, on the page
and in the recorder's pushes, in both themes; with one week of history the chart says
there is no normal yet."""

import json
import re
from datetime import datetime
from html import unescape
from zoneinfo import ZoneInfo

import pytest

from dashboard.testing import metrics
from dashboard.testing.browsers import screenshot, sign_in
from dashboard.testing.normal_days import rows, slot, write, write_sqlite
from dashboard.testing.processes import wait_until
from dashboard.testing.servers import migrated_sqlite, start_dashboard
from dashboard.testing.zones import late_morning

# The four weeks' slots hold 38, 42, 41 and 39 calls: median 40, and the band is the
# count's own noise, ± √40, wider than twice their deviation.
LOW, HIGH = 33.7, 46.3
FILLING = "filling today from the service"  # the charts' note while today fills
SENTENCE = re.compile(
    r"^[\d,]+ offered by \d\d:\d\d, \d+% above normal; [\d,]+ expected by the end of the day "
    r"\(normal [\d,]+, from 4 same weekdays\)\.$"
)


def chart_data(html: str, chart_id: str) -> dict:
    found = re.search(rf'<script id="{chart_id}" type="application/json">(.*?)</script>', html)
    assert found, f"no data for {chart_id}"
    return json.loads(unescape(found.group(1)))


def series(chart: dict, label: str) -> dict:
    return next(s for s in chart["series"] if s["label"] == label)


@pytest.fixture
def served(sim_factory, tmp_path):
    zone = late_morning()
    sim = sim_factory("--seed", "3", "--agents", "20", "--zone", zone)
    now = datetime.now(ZoneInfo(zone))

    def busier(hour, weeks_ago):  # today: 50 calls a slot, a quarter above the weeks'
        return slot(50) if weeks_ago == 0 else None

    database = tmp_path / "dashboard.sqlite3"
    migrated_sqlite(database, {"bob": "supervisor"})
    whole = now.hour + now.minute // 15 / 4
    write_sqlite(database, rows(ZoneInfo(zone), now, until=whole, shape=busier))
    server = start_dashboard(sim, tmp_path, {"TIME_ZONE": zone, "METRICS_TOKEN": metrics.TOKEN})
    # Today's slots are the fill's to write: the charts say so until it is done.
    progress = "dashboard_backfill_progress_ratio"
    wait_until(lambda: metrics.value(metrics.scrape(server.url), progress) == 1, 120, "filled")
    yield server
    server.stop()


def test_the_charts_show_the_normal_band_and_the_forecast(served, browser):
    client = served.signed_in_client("bob")
    html = wait_until(lambda: (got := client.get("/").text) and FILLING not in got and got, 30)
    calls = chart_data(html, "chart-calls")
    assert len(calls["x"]) == 96  # the whole of today, 15 minutes a point
    low, high = [s for s in calls["series"] if "band" in s]
    assert low["label"] == high["label"] == "Calls started: normal band"
    assert (low["band"], high["band"]) == ("low", "high")
    assert set(low["values"]) == {LOW} and set(high["values"]) == {HIGH}
    started = calls["series"].index(series(calls, "Calls started"))
    forecast = series(calls, "Calls offered: forecast")
    assert forecast["like"] == started
    ahead = [v for v in forecast["values"] if v is not None]
    assert ahead and all(v > 40 for v in ahead)  # the normal's 40, scaled up
    assert forecast["values"][-len(ahead) :] == ahead  # the rest of the day, to its end
    assert SENTENCE.match(calls["note"]), calls["note"]
    assert "Normal band (shaded)" in calls["inputs"][-1]

    service = chart_data(html, "chart-service")
    aht = [s for s in service["series"] if s["label"] == "AHT (s): normal band"]
    assert [set(s["values"]) for s in aht] == [{270.0}, {330.0}]  # 300 s ± 30 s every week
    assert service["note"] == "Shaded: the normal band, from 4 same weekdays."

    for scheme in ("light", "dark"):
        page = browser.new_page(viewport={"width": 1400, "height": 1000}, color_scheme=scheme)
        try:
            sign_in(page, served, "bob")
            note = page.locator(".chart[data-source=chart-calls] .chart-note")
            note.wait_for(timeout=30_000)
            assert SENTENCE.match(note.inner_text())
            if scheme == "light":  # the recorder's push of the grown day carries the normal
                first = page.locator("#chart-calls").text_content()
                page.wait_for_function(
                    "before => document.getElementById('chart-calls').textContent !== before",
                    arg=first,
                    timeout=60_000,
                )
                pushed = json.loads(page.locator("#chart-calls").text_content())
                assert [s["band"] for s in pushed["series"] if "band" in s] == ["low", "high"]
                assert SENTENCE.match(pushed["note"])
                assert SENTENCE.match(note.inner_text())  # drawn again, sentence and all
            page.locator(".intraday").scroll_into_view_if_needed()
            screenshot(page, f"normal-on-charts-{scheme}")
        finally:
            page.close()


def test_one_week_of_history_says_there_is_no_normal_yet(settings, bob, client_for):
    settings.TIME_ZONE = late_morning()
    zone = ZoneInfo(settings.TIME_ZONE)
    now = datetime.now(zone)
    made = rows(zone, now, weeks=(1,), until=now.hour + now.minute // 15 / 4)
    write(made)
    html = client_for(bob).get("/").content.decode()
    calls = chart_data(html, "chart-calls")
    assert calls["note"] == "No normal yet: 1 week of history (3 same weekdays needed)."
    assert not [s for s in calls["series"] if "band" in s or "forecast" in s]
    assert chart_data(html, "chart-service")["note"] == calls["note"]
