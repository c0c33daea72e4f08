"""While the service's history is read, the pages that read what it fills say so with its
progress instead of a partial figure: an agent's page (and its downloads, refused with when
to ask again) and the QA page (its all-time tables too) while today is read, the live
strip's comparisons and the intraday charts' with last week, and the normal's (what
changed, live and on /normal/, the forecast, the bands, today's day page) while the past
weeks are (today whole by then); each shows its figures once its days are read, an agent's
page open meanwhile without a reload. A dashboard stopped meanwhile stops at once."""

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from dashboard.testing import filling
from dashboard.testing.browsers import sign_in
from dashboard.testing.filling import FILLING, HELD, send_summary, strip, text
from dashboard.testing.live_view import LiveSocket, kpi_figures
from dashboard.testing.processes import wait_until
from dashboard.testing.zones import late_morning

PAST_HELD = "last week: filling from the service: 0%"
PAST_FILLING = "last week: filling from the service"
NORMAL_FILLING = (
    'The normal is partial, <span class="filling">filling the past weeks from the service: '
)
NORMAL_FILLING_CHART = "The normal is partial, filling the past weeks from the service: 0%"
DAYS = 2 * 86400  # older than this: the past weeks' pages, not today's


ZONE = late_morning()


@pytest.fixture
def held_fill(sim_factory, tmp_path):
    people = {"bob": "supervisor", "alice": "manager"}
    sim, server = filling.held_fill(sim_factory, tmp_path, ZONE, people)
    yield sim, server, server.signed_in_client("bob")
    server.stop()


def comparisons(shown: str) -> list[str]:
    """The compared tiles' lines under their figures."""
    return re.findall(r'<div class="vs">([^<]*)</div>', shown)


def chart_lines(home: str) -> list[str]:
    """The intraday charts' lines about last week (their explain panels' counts)."""
    found = re.findall(r'id="why-src-chart-(?:calls|service)"[^>]*>(.*?)</p>', home)
    lines = [line.strip() for one in found for line in one.split("<br>")]
    return [line for line in lines if line.lower().startswith("last ")]


def changed_part(shown: str) -> str:
    """The live view's "What changed" panel in a push."""
    return re.search(r'<div id="changed" class="changed">(.*?)</div>', shown).group(1)


def normal_said(normal: str, day: str) -> str:
    """What /normal/ and today's day page say in place of a forecast, over the bands, in
    place of what changed and of the day's figures against the normal."""
    return "".join(re.findall(rf"{re.escape(NORMAL_FILLING)}\d+%</span>: ([^.]*)\.", normal + day))


TODAYS_PANEL = "() => document.getElementById('drill-today').textContent"


def test_pages_say_what_is_filling_until_its_days_are_read(held_fill, page):
    sim, server, client = held_fill
    said = f'Today so far is partial, <span class="filling">{HELD}</span>:'
    wait_until(lambda: HELD in strip(server, client), 60, lambda: strip(server, client)[:3000])
    agent_id = wait_until(
        lambda: re.search(r'href="/agents/([^/"]+)/"', strip(server, client)), 60, "an agent"
    ).group(1)
    agent = f"{server.url}/agents/{agent_id}/"
    # Today held: the agent's day and the QA page's today say so (as the web processes
    # read it, a moment after the strip), no partial figure.
    day = wait_until(lambda: (got := text(client, agent)) and FILLING in got and got, 30)
    assert f"{said} the agent's figures follow once it is read." in day, day[-4000:]
    assert f"{said} the states follow once it is read." in day
    assert '<ul class="legend">' not in day and "No state changes recorded today" not in day
    figures = day.split('id="figures-title"')[1].split("</section>")[0]
    assert figures.count(f'<span class="filling">{HELD}</span>') == 4  # the note, each value
    assert not re.search(r'class="value">\s*[\d–]', figures), figures
    qa_line = day.split('id="qa-title"')[1].split("</h2>")[0].split('<span class="muted">')[1]
    assert HELD in qa_line and "average" not in qa_line and "none yet" not in qa_line
    assert f'<p hidden data-why="agent_handled"> Partial: {HELD} </p>' in day  # its counts
    for table in ("calls", "scorecards", "failures", "alerts"):
        csv = client.get(f"{agent}?format=csv&table={table}")
        assert csv.status_code == 503 and csv.headers["retry-after"] == "30", csv.text
        assert "history (0%): the agent's" in csv.text
    qa = text(client, f"{server.url}/qa/")
    assert f"{said} its QA average and pass rate follow once it is read." in qa, qa[-4000:]
    assert re.search(r'id="qa-today">Today: \d+ scorecards', qa) is None
    assert f'"note": "Partial: {HELD}."' in qa
    # The tables of every scorecard and check received take in today: partial too.
    partial = f'Partial, <span class="filling">{HELD}</span>: today\'s'
    assert qa.count(f"{partial} scorecards follow once it is read.") == 2, qa[-6000:]
    assert qa.count(f"{partial} checks follow once it is read.") == 1
    assert f'data-why="pass_rate">Partial: <span class="filling">{HELD}</span></p>' in qa
    csv = client.get(f"{server.url}/qa/?format=csv&table=by_agent")
    assert csv.status_code == 503 and "history (0%): QA by agent can be" in csv.text
    # An agent's page open in a browser while today is held.
    sign_in(page, server, "bob")
    page.goto(agent)
    assert HELD in page.evaluate(TODAYS_PANEL)
    page.evaluate("() => { window.notReloaded = true; }")
    # The comparisons with last week: not read either.
    wait_until(
        lambda: (got := comparisons(strip(server, client))) and all(x == PAST_HELD for x in got),
        30,
        lambda: comparisons(strip(server, client)),
    )

    # Today let go, the past weeks still held: today is whole, its comparisons say what
    # they wait for.
    # A socket of a page rendered with today read (not `filling=1`): never told to refresh.
    plain = LiveSocket(server, client, f"/ws/agents/{agent_id}/")
    sim.control("history-delay", seconds=3600, for_s=3600, older_than_s=DAYS)
    shown = wait_until(
        lambda: (got := strip(server, client)) and FILLING not in got and got,
        180,
        lambda: strip(server, client)[:3000],
    )
    assert kpi_figures(shown)["Completed"].isdigit(), shown
    lines = comparisons(shown)
    assert lines and all(line.startswith(PAST_FILLING) for line in lines), lines
    shown = wait_until(lambda: (got := text(client, agent)) and FILLING not in got and got, 30)
    assert '<ul class="legend">' in shown or "No state changes recorded today" in shown
    csv = client.get(f"{agent}?format=csv&table=calls")
    assert csv.status_code == 200 and csv.text.startswith("Started,Ended,Call id"), csv.text
    qa = text(client, f"{server.url}/qa/")
    assert FILLING not in qa and re.search(r'id="qa-today">Today: \d+ scorecards', qa), qa
    assert "Partial," not in qa
    # The agent's page open meanwhile: its day's figures, pushed, without a reload.
    page.wait_for_function(f"() => !({TODAYS_PANEL})().includes('{FILLING}')", timeout=60_000)
    assert page.evaluate("() => window.notReloaded")
    assert re.search(r"\d+", page.locator("#drill-today .kpi .value").nth(2).inner_text())
    assert "calls ended today" in page.locator('[data-why="agent_handled"]').text_content()
    states = page.locator("#drill-states").inner_text()
    assert FILLING not in states and FILLING not in page.locator("#drill-qa h2").inner_text()
    # A page rendered while filling whose socket connects only now is told at once.
    socket = LiveSocket(server, client, f"/ws/agents/{agent_id}/?filling=1")
    try:
        wait_until(lambda: 'id="drill-refresh"' in socket.receive(), 30, "the refresh")
    finally:
        socket.close()
    assert not any('id="drill-refresh"' in message for message in plain.drain())
    plain.close()
    # The intraday charts' lines about last week say what they wait for.
    lines = wait_until(
        lambda: (got := chart_lines(text(client, f"{server.url}/"))) and got,
        30,
        lambda: text(client, f"{server.url}/")[-3000:],
    )
    assert len(lines) == 2 and all(line.startswith(PAST_FILLING) for line in lines), lines
    home = text(client, f"{server.url}/")
    assert home.count(f"{NORMAL_FILLING_CHART}: its band follows once they are read.") == 2

    # Nothing judged against a normal of part of its weeks: the live panel and /normal/
    # say it is being read, and list no change.
    day = f"{server.url}/normal/day/{datetime.now(ZoneInfo(ZONE)).date()}/"
    panel = wait_until(
        lambda: NORMAL_FILLING in (got := changed_part(strip(server, client))) and got,
        30,
        lambda: changed_part(strip(server, client)),
    )
    assert "what changed follows once they are read." in panel, panel
    assert "<li" not in panel and "Nothing outside" not in panel and "No normal" not in panel
    normal = text(client, f"{server.url}/normal/")
    assert normal_said(normal, text(client, day)) == (
        "the forecast follows once they are read"
        "its medians and bands rest on the weeks read so far"
        "what changed follows once they are read"
        "the figures against it follow once they are read"
    ), normal.split("<main")[-1][:3000]
    assert '<ol class="changes">' not in normal and "offered by" not in normal
    manager = server.signed_in_client("alice")  # nor is the day's summary sent as whole
    answer = send_summary(manager, day)
    said_so = "The past weeks its normal is made of are still being read from the service's"
    assert said_so in answer, answer[-3000:]

    # The past weeks let go: the comparisons are made.
    sim.control("history-delay", seconds=0, for_s=0)
    lines = wait_until(
        lambda: (
            (got := comparisons(strip(server, client)))
            and not any(PAST_FILLING in x for x in got)
            and got
        ),
        240,
        lambda: comparisons(strip(server, client)),
    )
    assert any(" vs last " in x for x in lines), lines
    lines = chart_lines(text(client, f"{server.url}/"))
    assert len(lines) == 2 and all(re.match(r"Last \w+ by this time", x) for x in lines), lines
    assert NORMAL_FILLING_CHART not in text(client, f"{server.url}/")
    panel = wait_until(
        lambda: NORMAL_FILLING not in (got := changed_part(strip(server, client))) and got,
        30,
        lambda: changed_part(strip(server, client)),
    )
    assert "Nothing outside its normal today" in panel or "<li data-key=" in panel, panel
    normal = text(client, f"{server.url}/normal/")
    assert normal_said(normal, text(client, day)) == "", normal.split("<main")[-1][:3000]
    assert '<ol class="changes">' in normal


def test_a_dashboard_stopped_mid_fill_stops_at_once(held_fill):
    """The fill is cut where it is (a restart takes it up, as after a crash): a stopping
    process does not wait for a held page of the service's history."""
    sim, server, client = held_fill
    wait_until(lambda: PAST_FILLING in strip(server, client), 60, server.log)  # under way
    server.stop()
    assert server.process.wait(0) == 0
    assert "history fill stopped with the process (today 0% read)" in server.log()
