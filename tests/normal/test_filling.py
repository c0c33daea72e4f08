"""While today is read from the service's history, every page that shows a figure of today
says so with the progress the live view's strip shows, instead of a partial number; once
it is read the note goes and the figures are whole (the pushed charts without a reload)."""

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from dashboard.testing import filling
from dashboard.testing.filling import FILLING, HELD, PAST_FILLING, send_summary, strip, text
from dashboard.testing.live_view import LiveSocket, kpi_figures
from dashboard.testing.processes import (
    free_port,
    let_pass,
    wait_until,
)
from dashboard.testing.servers import (
    dashboard_env,
    migrated_sqlite,
    ready,
    signed_in_client,
    start_bridge,
    start_worker,
)
from dashboard.testing.zones import late_morning

ZONE = late_morning()
NOTES = (FILLING, PAST_FILLING)  # while today, or the weeks of its normal, are read
EXPIRY_S = 4  # the progress's expiry in the test of a bridge that dies mid-fill


@pytest.fixture
def held_fill(sim_factory, tmp_path):
    sim, server = filling.held_fill(
        sim_factory, tmp_path, ZONE, {"bob": "supervisor", "alice": "manager"}
    )
    yield sim, server, server.signed_in_client("bob")
    server.stop()


def chart_notes(message: str) -> dict:
    """The intraday charts' notes in a push of their data (chart id -> note or None)."""
    found = re.findall(
        r'<script id="(chart-[a-z]+)" type="application/json">(.*?)</script>', message
    )
    return {
        chart: (re.search(r'"note": "([^"]*)"', body) or [None, None])[1] for chart, body in found
    }


def test_todays_figures_say_they_fill_until_they_are_whole(held_fill):
    sim, server, client = held_fill
    day = f"{server.url}/normal/day/{datetime.now(ZoneInfo(ZONE)).date()}/"
    # Held: the live strip says it, and so does every page that reads today's slots.
    wait_until(lambda: HELD in strip(server, client), 60, lambda: strip(server, client)[:3000])
    # The pages read it as the web processes have it, a moment after the strip.
    normal = wait_until(
        lambda: (got := text(client, f"{server.url}/normal/")) and FILLING in got and got,
        30,
        lambda: text(client, f"{server.url}/normal/").split("<main", 1)[-1][:3000],
    )
    said = f'Today so far is partial, <span class="filling">{HELD}</span>:'
    assert f"{said} the forecast follows once it is read." in normal, normal.split("<main")[-1]
    assert f"{said} what changed follows once it is read." in normal
    assert "offered by" not in normal and "Nothing outside its normal band today" not in normal
    table = normal.split('id="normal"')[1].split("</table>")[0]
    for figure in ("Calls offered", "Calls completed", "Occupancy"):
        row = table.split(f'<th scope="row">{figure}</th>')[1].split("</tr>")[0]
        assert f'<td> <span class="filling">{HELD}</span> </td>' in row, row
    assert chart_notes(normal) == {"chart-normal": f"Partial: {HELD}."}
    home = text(client, f"{server.url}/")
    assert chart_notes(home) == dict.fromkeys(("chart-calls", "chart-service"), f"Partial: {HELD}.")
    campaign = wait_until(
        lambda: re.search(r'href="/campaigns/([^/"]+)/"', text(client, f"{server.url}/campaigns/")),
        60,
        "a campaign listed",
    )
    campaign = f"{server.url}/campaigns/{campaign.group(1)}/"
    assert f"{said} the outcome mix follows once it is read." in text(client, campaign)
    csv = client.get(f"{campaign}?format=csv&table=outcomes")
    assert csv.status_code == 503 and "history (0%): the outcome mix can be" in csv.text
    # The live view's "What changed" panel, worked out in the bridge, judges nothing yet.
    assert f"{said} what changed follows once it is read." in strip(server, client)
    page = wait_until(lambda: client.get(day).status_code == 200 and text(client, day), 60)
    assert f"{said} its figures follow once it is read." in page
    assert "Time outside the normal band" not in page
    # Nor is a summary of part of the day sent to the chat as the day's.
    manager = server.signed_in_client("alice")
    coaching = f"{server.url}/coaching/"
    partial = f'Partial, <span class="filling">{HELD}</span>: today\'s alerts follow once'
    assert partial in text(manager, coaching)
    answer = send_summary(manager, day)
    said_so = "Today is still being read from the service's history (0%): the summary can be"
    assert said_so in answer, answer[-3000:]

    # Let go: the pushed charts lose their note without a reload, the pages show the day.
    socket = LiveSocket(server, client)
    try:
        socket.receive()  # the whole view
        sim.control("history-delay", seconds=0, for_s=0)

        def whole_charts():
            last = [m for m in socket.messages if 'id="chart-calls"' in m]
            if last and FILLING not in last[-1]:
                return chart_notes(last[-1])
            socket.receive(timeout=5)

        notes = wait_until(whole_charts, 180, "the charts pushed whole", ignoring=TimeoutError)
        assert not any(FILLING in (n or "") for n in notes.values()), notes
    finally:
        socket.close()
    # Whole once the past weeks are read too: the normal's notes (below) wait for them.
    whole = wait_until(
        lambda: (got := strip(server, client)) and all(x not in got for x in NOTES) and got,
        240,
        lambda: strip(server, client)[:3000],
    )
    assert kpi_figures(whole)["Completed"].isdigit(), whole
    assert "what changed follows" not in whole
    normal = text(client, f"{server.url}/normal/")
    assert FILLING not in normal
    assert re.search(r"[\d,]+ offered by \d\d:\d\d|No forecast yet", normal), normal[:3000]
    page = text(client, day)
    assert FILLING not in page
    assert FILLING not in text(manager, coaching)
    shown = text(client, campaign)
    assert FILLING not in shown and "completed calls today" in shown
    csv = client.get(f"{campaign}?format=csv&table=outcomes")
    assert csv.status_code == 200 and csv.text.startswith("Outcome,Completed calls,Share %")
    assert "Time outside the normal band" in page or "No normal yet" in page


def test_a_dead_bridges_progress_expires_a_living_ones_does_not(sim_factory, redis_url, tmp_path):
    """The production topology on Redis: the bridge writes the progress, a web worker shows
    it. It is written again while the fill is held (nothing moves), and once the bridge is
    killed mid-fill, the worker no longer says "filling" once the progress expired."""
    sim = filling.held_history(sim_factory, ZONE)
    database = migrated_sqlite(tmp_path / "db.sqlite3", {"bob": "supervisor"})
    env = dashboard_env(
        sim, database, REDIS_URL=redis_url, TIME_ZONE=ZONE, FILLING_EXPIRY_S=EXPIRY_S
    )
    port = free_port()
    bridge, web = start_bridge(env), start_worker(env, port)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_until(lambda: ready(url), 60, web.log)
        client = signed_in_client(url, "bob")
        normal = f"{url}/normal/"
        wait_until(lambda: HELD in text(client, normal), 60, bridge.log)
        let_pass(2 * EXPIRY_S, "twice the progress's expiry, the fill held")
        assert HELD in text(client, normal)
        bridge.kill()
        wait_until(lambda: FILLING not in text(client, normal), 10 * EXPIRY_S, "the expiry")
    finally:
        bridge.stop()
        web.stop()
