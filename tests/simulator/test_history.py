"""The simulated tenant's past (contract 6.3): 35 days and today before it started, served
over paged lists, oldest first, the same for a seed, and its own day figures agreeing with
what the pages hold."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from dashboard.testing.simulator import start_simulator
from dashboard.testing.zones import late_morning

ZONE = late_morning()


@pytest.fixture(scope="module")
def sim():
    sim = start_simulator(
        "--faults", "--seed", "11", "--agents", "12", "--zone", ZONE, "--history-days", "35"
    )
    yield sim
    sim.stop()


@pytest.fixture(scope="module")
def token(sim):
    return sim.sign_in()["access_token"]


def every_page(sim, token, path, cursor_key="next_cursor", **params):
    rows, cursor, pages = [], None, 0
    while True:
        body = sim.get(path, token, **params, **({"cursor": cursor} if cursor else {})).json()
        rows += body["data"]
        pages += 1
        cursor = body[cursor_key]
        if not cursor:
            return rows, pages


def test_a_day_of_calls_pages_oldest_first_and_matches_the_simulators_own_figures(sim, token):
    truth = sim.control("day-figures", at=datetime.now(UTC).isoformat())
    since = datetime.fromisoformat(truth["day_start"]) - timedelta(hours=1)
    calls, pages = every_page(
        sim, token, "/calls", since=since.isoformat(), until=truth["at"], limit=25
    )
    assert pages > 1
    keys = [(x["started_at"], x["id"]) for x in calls]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    ended = [
        x for x in calls if x["ended_at"] and truth["day_start"] <= x["ended_at"] < truth["at"]
    ]
    assert len(ended) == truth["completed"] > 0
    # Without until or cursor the section 5 answer stays: newest first, at most 200.
    old = sim.get("/calls", token, since=since.isoformat()).json()
    assert "next_cursor" not in old
    started = [x["started_at"] for x in old["data"]]
    assert started == sorted(started, reverse=True)


def test_states_cover_each_agents_day_and_end_in_the_current_state(sim, token):
    truth = sim.control("day-figures")
    rows, _ = every_page(
        sim, token, "/agent-status/history", cursor_key="nextCursor", since=truth["day_start"]
    )
    current = {a["agentId"]: a for a in sim.agents()}
    open_rows = {r["agentId"]: r for r in rows if r["until"] is None}
    assert open_rows.keys() == current.keys()
    for agent_id, row in open_rows.items():
        assert (row["status"], row["since"]) == (
            current[agent_id]["status"],
            current[agent_id]["statusSince"],
        )
    assert {r["status"] for r in rows} >= {"on_call", "wrap_up", "available", "offline"}


def test_records_page_too_and_qa_agrees_with_the_figures(sim, token):
    truth = sim.control("day-figures")
    cards, _ = every_page(
        sim, token, "/qa/scorecards", since=truth["day_start"], until=truth["at"], limit=10
    )
    assert len(cards) == truth["qa_scored"]
    average = round(sum(100 * c["score"] / c["max_score"] for c in cards) / len(cards), 1)
    assert average == truth["qa_average_pct"]
    for path in ("/compliance/checks", "/coaching/alerts"):
        rows, _ = every_page(sim, token, path, since=truth["day_start"], until=truth["at"])
        assert rows


def test_the_past_is_the_same_for_a_seed_and_weekends_are_quieter(sim, token):
    other = start_simulator(
        "--seed", "11", "--agents", "12", "--zone", ZONE, "--history-days", "35"
    )
    try:
        day = datetime.fromisoformat(sim.control("day-figures")["day_start"])
        days = [(day - timedelta(days=n), day - timedelta(days=n - 1)) for n in range(1, 15)]
        counts = {}
        for since, until in days:
            window = {"since": since.isoformat(), "until": until.isoformat(), "limit": 1000}
            mine = every_page(sim, token, "/calls", **window)[0]
            theirs = every_page(other, other.sign_in()["access_token"], "/calls", **window)[0]
            assert mine == theirs
            # The weekday of the zone's noon: day_start is given in UTC, up to 12 h away.
            noon = (since + timedelta(hours=12)).astimezone(ZoneInfo(ZONE))
            counts[noon.weekday()] = len(mine)
        assert max(counts[5], counts[6]) < min(counts[d] for d in range(5))
    finally:
        other.stop()


def test_bad_paging_parameters_are_refused_with_a_sentence(sim, token):
    for params in (
        {"until": "yesterday"},
        {"limit": 5000, "until": "2030-01-01T00:00:00Z"},
        {"cursor": "not-ours"},
    ):
        r = sim.get("/calls", token, **params)
        assert r.status_code == 400 and r.json()["message"]
