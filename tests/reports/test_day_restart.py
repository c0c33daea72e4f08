"""The day's figures across restarts of a real dashboard process against the simulated
tenant: a clean stop and start gives the same figures back, and after a crash with the
floor moving on meanwhile, the calls ended in the gap come back from the service's list."""

from datetime import UTC, datetime

from dashboard.testing.live_view import current_kpis
from dashboard.testing.processes import wait_until
from dashboard.testing.servers import start_dashboard

DAY_FIGURES = ("Completed", "Service level", "Avg handle time", "Occupancy", "AI share")


def midday_zone() -> dict:
    """An organisation whose clock says about noon now: the simulator at 20 times real speed
    stamps its calls up to half an hour ahead, which must not cross a midnight."""
    hours = (12 - datetime.now(UTC).hour + 12) % 24 - 12  # -12 … +11
    return {"TIME_ZONE": f"Etc/GMT{-hours:+d}"}  # Etc/GMT-3 is three hours ahead of UTC


def minutes(text: str) -> int:
    m, s = text.split(":")
    return int(m) * 60 + int(s)


def percent(text) -> float:
    return float(str(text).rstrip("%"))


def test_the_days_figures_survive_a_restart_and_a_crash(sim_factory, tmp_path):
    sim = sim_factory("--faults", "--seed", "3", "--speed", "20")
    # The inbound board reads the queues every 0.2 s: the service level settles that soon.
    zone = {**midday_zone(), "INBOUND_POLL_S": "0.2"}
    server = start_dashboard(sim, tmp_path, zone, people={"bob": "supervisor"})

    def figures_at_truth():
        """The figures once the dashboard has counted every call the floor ended and the
        inbound board's service level has settled (the same over a second, five reads)."""
        client = server.signed_in_client("bob")
        seen = []

        def settled():
            # read each time: a call already ending as the floor paused still ends
            ended = sim.stats()["calls_ended"]
            seen.append(current_kpis(server, client))
            last = seen[-5:]
            counted = all(k["Completed"] == str(ended) for k in last)
            steady = len(last) == 5 and len({k["Service level"] for k in last}) == 1
            return counted and steady and last[-1]

        return wait_until(
            settled,
            30,
            lambda: (
                f"{sim.stats()['calls_ended']} calls ended; the dashboard said "
                f"{current_kpis(server, client)}"
            ),
            interval=0.25,
        )

    try:
        wait_until(lambda: sim.stats()["calls_ended"] >= 15, 60, "15 calls ended")
        sim.control("pause")
        before = figures_at_truth()
        assert all(before[name] not in (None, "–") for name in DAY_FIGURES), before

        # A clean restart: SIGTERM, the recorder writes what grew. Given its time on a loaded
        # machine: killed, it would lose the last seconds' counts (20 times that at this speed).
        server.stop(timeout=60)
        assert server.process.popen.returncode == 0, "not a clean stop"
        server = start_dashboard(sim, tmp_path, zone)
        # Today was read before: its stored figures show from the first push, no "filling".
        first = current_kpis(server, server.signed_in_client("bob"))
        assert first["Completed"] == before["Completed"], first
        after = figures_at_truth()
        for name in ("Completed", "Service level", "AI share"):
            assert after[name] == before[name], (name, before, after)
        aht = minutes(after["Avg handle time"]) - minutes(before["Avg handle time"])
        assert 0 <= aht <= 10, (before, after)  # wrap-ups under way went on meanwhile
        assert abs(percent(after["Occupancy"]) - percent(before["Occupancy"])) < 3

        server.process.kill()  # a crash: nothing flushed, and the floor goes on without it
        sim.control("resume")
        gone = sim.stats()["calls_ended"]
        wait_until(lambda: sim.stats()["calls_ended"] >= gone + 5, 60, "5 calls ended")
        sim.control("pause")
        server = start_dashboard(sim, tmp_path, zone)
        crashed = figures_at_truth()  # every call ended in the gap counted, none twice
        truth = sim.stats()
        share = round(100 * truth["ai_calls_ended"] / truth["calls_ended"], 1)
        assert percent(crashed["AI share"]) == share
    finally:
        sim.control("resume")
        server.stop()
