"""The simulated tenant's inbound morning: with a history, today before the start has its
queue calls, one answered from a queue for each inbound call of the history's today and
some callers who gave up, the same for a seed, and the queues' stats since the start of the
day count them."""

from datetime import UTC, datetime, timedelta

from dashboard.testing.simulator import start_simulator
from dashboard.testing.zones import late_morning


def started(zone: str):
    return start_simulator(
        "--faults", "--seed", "11", "--agents", "12", "--zone", zone, "--history-days", "1"
    )


def test_the_morning_answers_the_historys_inbound_calls_the_same_for_a_seed():
    zone = late_morning()
    before_start = datetime.now(UTC)  # everything earlier is the morning, not the live floor
    sim, other = started(zone), started(zone)
    try:
        token = sim.sign_in()["access_token"]
        truth = sim.control("day-figures", at=before_start.isoformat())
        morning = truth["inbound"]["queues"]
        day_start = truth["day_start"]
        calls = morning_calls(sim, token, day_start, before_start)
        inbound = [c for c in calls if c["direction"] == "inbound" and c["agent_id"]]
        assert len(inbound) > 5
        assert sum(q["answered"] for q in morning.values()) == len(inbound)
        assert sum(q["abandoned"] for q in morning.values()) > 0
        for queue in morning.values():
            assert queue["offered"] >= queue["answered"] + queue["abandoned"]
            assert queue["answered_within_target"] <= queue["answered"]
        assert truth["inbound"]["floor_sl_pct"] is not None
        # The same seed and the same history, the same morning. Today's history is made up
        # to each simulator's own start, and the two start seconds apart: where that made
        # their calls differ, their mornings may too.
        theirs = other.control("day-figures", at=before_start.isoformat())["inbound"]
        their_calls = morning_calls(other, other.sign_in()["access_token"], day_start, before_start)
        if their_calls == calls:
            assert theirs == truth["inbound"]
        # The service's own figures since 00:00 count the morning (and the live floor's since).
        for queue_id, queue in morning.items():
            stats = sim.get(f"/inbound/queues/{queue_id}/stats", token, since=day_start).json()
            assert stats["offered"] >= queue["offered"] and stats["answered"] >= queue["answered"]
        later = (datetime.fromisoformat(day_start) + timedelta(days=1)).isoformat()
        empty = sim.get(f"/inbound/queues/{queue_id}/stats", token, since=later).json()
        assert empty["offered"] == 0
    finally:
        sim.stop()
        other.stop()


def morning_calls(sim, token: str, day_start: str, before: datetime) -> list[dict]:
    """The service's calls from the start of the day to `before`, every page."""
    calls, cursor = [], None
    while True:
        body = sim.get(
            "/calls",
            token,
            since=day_start,
            until=before.isoformat(),
            limit=1000,
            **({"cursor": cursor} if cursor else {}),
        ).json()
        calls += body["data"]
        if not (cursor := body["next_cursor"]):
            return calls
