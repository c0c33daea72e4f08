"""`make bench`'s floor scenarios end to end on a tiny floor: teams over two workers on
Redis and PostgreSQL, the database's growth an event, and the alerts a floor raises (each
waits on real time: a module of their own, so another worker can take them)."""

import json

import pytest

from dashboard.testing.benchmarks import bench


@pytest.mark.timeout(300)  # Redis, PostgreSQL, two workers and a bridge, then the reference
def test_it_measures_team_pages_and_the_whole_floor_over_two_workers(tmp_path):
    run = bench("teams_smoke", tmp_path, timeout=280)
    got = json.loads((tmp_path / "latest.json").read_text())["teams_smoke"]
    assert (got["agents"], got["clients"], got["connected"]) == (40, 6, 6)
    assert got["emitted"] >= 10 and got["recorded"] == got["emitted"]
    # A team's sockets were sent its own team's tiles only, and no one missed a change.
    assert got["foreign"] == 0 and got["team_lost"] == 0 and got["floor_lost"] == 0
    assert got["team_p99_ms"] > 0 and got["floor_p99_ms"] > 0 and got["team_vs_ideal"] > 0
    assert got["ideal_team_p99_ms"] > 0 and got["ideal_floor_p99_ms"] > 0
    # Each worker's sockets and CPU apart, and the bridge's, which applied every event.
    assert len(got["workers"]) == 2 and all(w["lost"] == 0 for w in got["workers"])
    assert all(w["cpu_s_per_s"] > 0 and w["rss_mb"] > 0 for w in got["workers"])
    assert got["bridge_cpu_s_per_s"] > 0 and got["bridge_lag_p99_ms"] > 0
    assert "teams_smoke" in run.stdout


def test_it_measures_the_databases_growth_an_event(tmp_path):
    run = bench("storage_smoke", tmp_path)
    got = json.loads((tmp_path / "latest.json").read_text())["storage_smoke"]
    assert (got["agents"], got["events_per_s"]) == (40, 200) and got["events_applied"] > 0
    assert got["bytes_grown"] > 0 and got["bytes_per_event"] > 0
    assert got["bytes_per_event_by_table"]  # where it went
    assert "storage_smoke" in run.stdout


def test_it_measures_the_alerts_and_chat_posts_a_floor_makes(tmp_path):
    run = bench("alerts_smoke", tmp_path)
    got = json.loads((tmp_path / "latest.json").read_text())["alerts_smoke"]
    assert (got["agents"], got["events_per_s"]) == (40, 20) and got["seconds"] >= 5
    assert got["alerts_raised"] == sum(got["raised_by_rule"].values())
    assert got["chat_posts"] <= got["transitions_posted"]
    assert 0 <= got["largest_burst_posts_per_minute"] <= got["chat_posts"]
    assert "alerts_smoke" in run.stdout
