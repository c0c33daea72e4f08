"""The normal on the campaign's and the QA page's intraday charts, as on the live view's:
from days of known shape a campaign's chart bands its dial attempts per 15 minutes (its
own dials' median and band on the same weekday of four weeks) and says so under it; the
QA page's chart bands the average score and the scorecards per hour; with one week of
history each chart says there is no normal yet and draws no band."""

import json
import re
from datetime import datetime, timedelta
from html import unescape

from dashboard.quality.models import Scorecard
from dashboard.testing.normal_days import rows, write

NOTE = "Shaded: the normal band, from 4 same weekdays."
SHORT = "No normal yet: 1 week of history (3 same weekdays needed)."


def chart_data(html: str, chart_id: str) -> dict:
    found = re.search(rf'<script id="{chart_id}" type="application/json">(.*?)</script>', html)
    assert found, f"no data for {chart_id}"
    return json.loads(unescape(found.group(1)))


def band(chart: dict, label: str, x: datetime) -> tuple:
    """The band's (low, high) of the series `label` at the slot or hour `x`."""
    at = chart["x"].index(int(x.timestamp()))
    edges = {s["band"]: s["values"][at] for s in chart["series"] if s["label"] == label}
    assert [s["like"] for s in chart["series"] if s["label"] == label] == [
        next(i for i, s in enumerate(chart["series"]) if f"{s['label']}: normal band" == label)
    ] * 2
    return edges["low"], edges["high"]


def today_at(zone, hour: float) -> datetime:
    midnight = datetime.combine(datetime.now(zone).date(), datetime.min.time(), zone)
    return midnight + timedelta(hours=hour)


def test_a_campaigns_chart_bands_its_dial_attempts(zone, bob, client_for):
    now = datetime.now(zone)
    write(rows(zone, now, until=now.hour + now.minute / 60))
    chart = chart_data(client_for(bob).get("/campaigns/k1/").content.decode(), "chart-campaign")
    # Its dials at 08:00 on the four weeks: 19, 21, 20 and 19 (half the floor's calls):
    # median 19.5, band ± √19.5, the count's own noise.
    assert band(chart, "Dial attempts: normal band", today_at(zone, 8)) == (15.1, 23.9)
    assert [s["label"] for s in chart["series"] if "band" in s] == [
        "Dial attempts: normal band"
    ] * 2  # connects and appointments share its axis: one band per axis
    assert chart["note"] == NOTE
    assert any(line.startswith("Normal band (shaded): per 15 minutes") for line in chart["inputs"])


def test_a_campaigns_chart_on_one_week_says_there_is_no_normal_yet(zone, bob, client_for):
    now = datetime.now(zone)
    write(rows(zone, now, weeks=(1,), until=now.hour + now.minute / 60))
    chart = chart_data(client_for(bob).get("/campaigns/k1/").content.decode(), "chart-campaign")
    assert chart["note"] == SHORT and not [s for s in chart["series"] if "band" in s]


def scorecards(zone, weeks_ago: int, scores: list[int]):
    """`scores` (of 100) scored between 10:00 and 11:00 that day."""
    at = today_at(zone, 10) - timedelta(days=7 * weeks_ago)
    Scorecard.objects.bulk_create(
        Scorecard(
            scorecard_id=f"s{weeks_ago}-{n}",
            score=score,
            max_score=100,
            passed=score >= 70,
            scored_at=at + timedelta(minutes=5 * n),
        )
        for n, score in enumerate(scores)
    )


def test_the_qa_chart_bands_the_score_and_the_scorecards(zone, bob, client_for):
    for weeks_ago, scores in {1: [80, 90], 2: [84, 86, 85], 3: [86, 84], 4: [85, 85, 85]}.items():
        scorecards(zone, weeks_ago, scores)
    scorecards(zone, 0, [60, 62])
    chart = chart_data(client_for(bob).get("/qa/").content.decode(), "chart-qa")
    ten = today_at(zone, 10)
    # Average 85 each week: the band is the score's own 5 points either side.
    assert band(chart, "Average QA score %: normal band", ten) == (80.0, 90.0)
    # 2, 3, 2 and 3 scorecards: median 2.5, at least 2 either side.
    assert band(chart, "Scorecards: normal band", ten) == (0.5, 4.5)
    assert chart["note"] == NOTE


def test_the_qa_chart_on_one_week_says_there_is_no_normal_yet(zone, bob, client_for):
    scorecards(zone, 1, [80, 90])
    scorecards(zone, 0, [60, 62])
    chart = chart_data(client_for(bob).get("/qa/").content.decode(), "chart-qa")
    assert chart["note"] == SHORT and not [s for s in chart["series"] if "band" in s]
