"""A dashboard started in the middle of a lived-in day: within 30 s its day figures, each
queue's and the floor's service level, and each agent's time in each state equal the
simulator's own history, last week is there to compare with, and a restart counts nothing
twice."""

import json
import re
from datetime import UTC, datetime
from html import unescape

import pytest

from dashboard.testing import metrics
from dashboard.testing.inbound import csv_rows
from dashboard.testing.live_view import LiveSocket, current_kpis, kpi_figures
from dashboard.testing.processes import free_port, wait_until
from dashboard.testing.servers import WEBHOOK_SECRET, start_dashboard
from dashboard.testing.zones import late_morning

FILLING = "filling today from the service"
PROGRESS = "dashboard_backfill_progress_ratio"


ZONE = late_morning()


@pytest.fixture
def tenant_with_past(sim_factory, tmp_path):
    """The simulator with its past (seed 5, 30 agents), its webhooks to the dashboard's
    port, and a way to start the dashboard on it (again: the same database)."""
    port = free_port()
    sim = sim_factory(
        "--faults",
        "--seed",
        "5",
        "--agents",
        "30",
        "--zone",
        ZONE,
        "--history-days",
        "35",
        "--webhook-url",
        f"http://127.0.0.1:{port}/webhooks/service/",
        "--webhook-secret",
        WEBHOOK_SECRET,
    )
    env = {"TIME_ZONE": ZONE, "UPSTREAM_REFRESH_INTERVAL_S": "2", "METRICS_TOKEN": metrics.TOKEN}
    servers = []

    def start():
        server = start_dashboard(sim, tmp_path, env, port=port, people={"bob": "supervisor"})
        servers.append(server)
        return server

    yield sim, start
    sim.control("resume")
    for server in servers:
        server.stop()


def clock_s(text: str) -> int:
    parts = [int(p) for p in text.strip().split(":")]
    seconds = 0
    for p in parts:
        seconds = seconds * 60 + p
    return seconds


def percent(text: str) -> float:
    return float(text.rstrip("%"))


def qa_today(client, server) -> tuple[int, float | None, float | None]:
    page = client.get(f"{server.url}/qa/").text
    found = re.search(
        r'id="qa-today">Today: (\d+) scorecards(?:, average <span class="num">'
        r'([\d.]+)%</span>, <span class="num">([\d.]+)%</span> passed)?',
        page,
    )
    if found is None:  # today still said to be filling: no figures yet
        return -1, None, None
    n, avg, passed = found.groups()
    return int(n), avg and float(avg), passed and float(passed)


def by_state(client, server, agent_id) -> dict[str, int]:
    """The agent page's time in each state today, in seconds, by the legend's label."""
    page = client.get(f"{server.url}/agents/{agent_id}/").text
    legend = page.split('<ul class="legend">', 1)[1].split("</ul>", 1)[0]
    items = re.findall(r"</svg>\s*([^<]+?)\s*<span class=\"num\">([^<]+)</span>", legend)
    return {unescape(label): clock_s(value) for label, value in items}


LABELS = {  # the agent page's legend labels by state (dashboard/drilldown STATE_LOOK)
    "available": "Available",
    "ringing": "Ringing",
    "on_call": "On call",
    "wrap_up": "Wrap-up",
    "paused": "Paused",
    "offline": "Offline",
}


def matches_truth(sim, server, client, aht_s=1, occupancy=0.1):
    """The day figures against the simulator's truth at the same moment (None: not yet);
    AHT and occupancy within the given slack (their values move while they are read)."""
    before = sim.control("day-figures")
    kpis = current_kpis(server, client)
    after = sim.control("day-figures")
    if "Completed" not in kpis:  # a tile that says what is filling holds no number
        return None
    wanted = {
        "Completed": str(after["completed"]),
        "Appointments": str(after["appointments"]),
    }
    for name, value in wanted.items():
        if kpis[name] != value:
            return None
    aht = clock_s(kpis["Avg handle time"])
    if not before["aht_s"] - aht_s <= aht <= after["aht_s"] + aht_s:
        return None
    low, high = sorted((before["occupancy_pct"], after["occupancy_pct"]))
    if not low - occupancy <= percent(kpis["Occupancy"]) <= high + occupancy:
        return None
    n, avg, passed = qa_today(client, server)
    if (n, avg, passed) != (after["qa_scored"], after["qa_average_pct"], after["qa_pass_rate_pct"]):
        return None
    return kpis, after


SL = "Service level % (within target ÷ answered + abandoned − short, open minutes)"
FLOOR_SL = re.compile(r'id="floor-sl">([\d.]+)%')


def inbound_shown(server, client) -> dict:
    """Each queue's service level and day per 15 minutes (the "before" row too) as the
    pages show them, and the floor's."""
    queues = {
        r["Queue id"]: {
            "sl_pct": float(r[SL]) if r[SL] else None,
            "day": csv_rows(client, f"{server.url}/queues/{r['Queue id']}/"),
        }
        for r in csv_rows(client, f"{server.url}/queues/")
    }
    floor = FLOOR_SL.search(client.get(f"{server.url}/queues/").text)
    return {"queues": queues, "floor_sl_pct": floor and float(floor.group(1))}


def day_sums(rows: list[dict]) -> tuple[int, int, int]:
    """Offered, answered and abandoned over a queue's day as its page lists it."""
    return tuple(sum(int(r[k]) for r in rows) for k in ("Offered", "Answered", "Abandoned"))


def service_level_matches(sim, server, client):
    """The inbound pages against the simulator's truth (None: not yet): each queue's and
    the floor's service level, and each queue's day, before and per 15 minutes, adding up to
    the service's day (nothing lost, nothing twice)."""
    truth = sim.control("day-figures")["inbound"]
    shown = inbound_shown(server, client)
    if shown["floor_sl_pct"] != truth["floor_sl_pct"] or set(shown["queues"]) != set(
        truth["queues"]
    ):
        return None
    for queue_id, want in truth["queues"].items():
        got = shown["queues"][queue_id]
        counted = (want["offered"], want["answered"], want["abandoned"])
        if got["sl_pct"] != want["sl_pct"] or day_sums(got["day"]) != counted:
            return None
    return shown, truth


def before_rows(day: list[dict]) -> list[dict]:
    """A queue's day's "before" row (the day before the dashboard's first read), if any."""
    return [r for r in day if r["Slot start"].startswith("before ")]


def said_inbound(sim, server, client) -> str:
    truth = sim.control("day-figures")["inbound"]
    return f"truth {truth}; the dashboard showed {inbound_shown(server, client)}"


def said(sim, server, client) -> str:
    truth = {k: v for k, v in sim.control("day-figures").items() if k != "agents"}
    shown = current_kpis(server, client)
    return f"truth {truth}; the dashboard said {shown}; QA {qa_today(client, server)}"


def test_the_day_from_the_first_minute_equals_the_services_history(tenant_with_past):
    sim, start = tenant_with_past
    server = start()
    client = server.signed_in_client("bob")
    sim.control("pause")  # the floor stands still: the truth is the same while compared
    kpis, truth = wait_until(
        lambda: matches_truth(sim, server, client),
        30,
        lambda: (
            f"truth { ({k: v for k, v in sim.control('day-figures').items() if k != 'agents'}) }"
            f"; the dashboard said {current_kpis(server, client)}; {qa_today(client, server)}"
        ),
    )
    assert truth["completed"] > 20  # a lived-in morning, not a few minutes
    assert "no data" not in kpis.get("vs", "")
    # Service level: the day's, morning included, each queue's and the floor's.
    shown, levels = wait_until(
        lambda: service_level_matches(sim, server, client),
        30,
        lambda: said_inbound(sim, server, client),
    )
    assert levels["floor_sl_pct"] is not None
    assert sum(q["offered"] for q in levels["queues"].values()) > 20  # the queues' morning
    for queue_id, queue in shown["queues"].items():
        if levels["queues"][queue_id]["offered"] == 0:  # closed all morning (its hours)
            assert queue["day"] == [], queue["day"]
            continue
        # The morning is the "before" row, never the slot of the first read.
        before = before_rows(queue["day"])
        slots = [r for r in queue["day"] if r not in before]
        assert len(before) == 1 and int(before[0]["Offered"]) > 0, queue["day"]
        assert all(int(r["Offered"]) < int(before[0]["Offered"]) for r in slots), queue["day"]
    # The floor's chart per 15 minutes says where its slots start.
    first_read = datetime.fromisoformat(before[0]["Slot start"].removeprefix("before "))
    chart = re.search(
        r'<script id="chart-service" type="application/json">(.*?)</script>',
        client.get(f"{server.url}/").text,
    )
    labels = [x["label"] for x in json.loads(chart.group(1))["series"]]
    assert f"Service level % (each queue's own target) from {first_read:%H:%M}" in labels, labels
    # Each agent's time in each state, as the agent's page shows it (to the second).
    agents = list(truth["agents"])[:6]
    for agent_id in agents:
        t0 = datetime.now(UTC)
        shown = by_state(client, server, agent_id)
        t1 = datetime.now(UTC)
        truth_then = sim.control("day-figures", at=t1.isoformat())["agents"][agent_id]
        slack = (t1 - t0).total_seconds() + 2
        for state, seconds in truth_then.items():
            if seconds < 1:
                continue
            assert abs(shown.get(LABELS[state], 0) - seconds) <= slack, (
                agent_id,
                shown,
                truth_then,
            )
    # Last week's same day was read too: the comparisons have something to compare with.
    last_week = re.compile(r"Last \w{3} by this time \(dashed\): (\d+) started")
    started = wait_until(
        lambda: last_week.search(unescape(client.get(f"{server.url}/").text)),
        30,
        "last week's comparison on the live view",
    )
    assert int(started.group(1)) > 20


def test_a_restart_mid_day_counts_nothing_twice(tenant_with_past):
    sim, start = tenant_with_past
    server = start()
    client = server.signed_in_client("bob")
    sim.control("pause")
    wait_until(lambda: matches_truth(sim, server, client), 30, lambda: said(sim, server, client))
    first, _ = wait_until(
        lambda: service_level_matches(sim, server, client),
        30,
        lambda: said_inbound(sim, server, client),
    )
    sim.control("resume")
    server.stop()
    # While it is away, calls end (their webhooks fail and are retried) and agents move on.
    on_call = wait_until(
        lambda: [a["agentId"] for a in sim.agents() if a["status"] in ("ringing", "on_call")],
        30,
        "an agent on a call",
    )
    for agent_id in on_call[:3]:
        sim.control("agent-status", agent_id=agent_id, status="available")
    assert sim.stats()["calls_ended"] >= min(3, len(on_call)) > 0
    server = start()
    client = server.signed_in_client("bob")
    sim.control("pause")
    # Nothing twice: the counts are the truth's. The calls that ended while no dashboard
    # followed come from the service's call list, whose talk times count at the average
    # of their slot, and states begun and left meanwhile from the history: AHT and
    # occupancy within a few seconds and a few tenths.
    wait_until(
        lambda: matches_truth(sim, server, client, aht_s=5, occupancy=0.5),
        30,
        lambda: (
            f"truth { ({k: v for k, v in sim.control('day-figures').items() if k != 'agents'}) }"
            f"; the dashboard said {current_kpis(server, client)}"
        ),
    )
    # The queues' day too: the morning read before the restart stays where it was, and what
    # came while the dashboard was away is counted once.
    again, _ = wait_until(
        lambda: service_level_matches(sim, server, client),
        30,
        lambda: said_inbound(sim, server, client),
    )
    for queue_id, queue in first["queues"].items():
        assert before_rows(again["queues"][queue_id]["day"]) == before_rows(queue["day"])


def test_figures_being_filled_say_so_instead_of_a_wrong_number(tenant_with_past):
    sim, start = tenant_with_past
    sim.control("rest-delay", seconds=1.5, for_s=120)  # a slow service: the fill takes a while
    server = start()
    client = server.signed_in_client("bob")
    strips = []  # the whole floor's KPI strip, as each browser connecting was sent it

    def read() -> dict | None:
        socket = LiveSocket(server, client)
        try:
            strip = re.search(r'<div id="kpis".*?(?=<div id="changed")', socket.receive(), re.S)
        finally:
            socket.close()
        strips.append(unescape(strip.group(0)))
        figures = kpi_figures(strip.group(0))
        return figures if "Completed" in figures else None  # a number: today is read

    # From the first browser on, today's figures say "filling" until they are the truth.
    kpis = wait_until(read, 180, "today read")
    said = [re.search(FILLING + r": (\d+)%", strip) for strip in strips[:-1]]
    assert said and all(said), strips
    assert int(kpis["Completed"]) > 20


def progress(server) -> float:
    """The backfill's progress as a Prometheus scrape of /metrics reads it."""
    found = [v for (name, _), v in metrics.scrape(server.url).items() if name == PROGRESS]
    assert len(found) == 1, found
    return found[0]


def test_the_metrics_follow_the_fill_from_part_way_to_done(tenant_with_past):
    sim, start = tenant_with_past
    sim.control("rest-delay", seconds=1.5, for_s=120)  # a slow service: the fill takes a while
    server = start()
    part = wait_until(lambda: 0 < (p := progress(server)) < 1 and p, 60, "the fill part way")
    wait_until(lambda: progress(server) == 1, 180, "the fill done")
    assert 0 < part < 1
