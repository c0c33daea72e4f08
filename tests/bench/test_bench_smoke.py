"""`make bench` end to end on a tiny scenario: the whole pipeline runs and nothing is lost."""

import copy
import json

import pytest

from bench.run import figure, median_of
from dashboard.testing.benchmarks import bench

REQUIRED = {
    "agents",
    "events_per_s",
    "clients",
    "p50_ms",
    "p95_ms",
    "p99_ms",
    "max_ms",
    "ideal_p99_ms",
    "p99_vs_ideal",
    "web_cpu_s_per_s",
    "web_cpu_s_per_1k_events",
    "lost",
    "web_rss_mb",
}


def test_it_measures_a_tiny_scenario_end_to_end_and_reports_medians_of_runs(tmp_path):
    earlier = {"floor": {"p99_ms": 70.0, "measured": {"date": "2026-01-02"}}, "runs": 3}
    (tmp_path / "latest.json").write_text(json.dumps(earlier))
    # a shorter window than the scenario's, the dashboard's loop callbacks timed
    run = bench("smoke", tmp_path, "--seconds", "1", "--stalls")
    files = {p.name: json.loads(p.read_text()) for p in tmp_path.glob("*.json")}
    [dated] = [n for n in files if n.count("-") == 2 and n != "latest.json"]
    results = files[dated]
    assert "runs" not in results  # one run: its own figures
    # latest.json keeps the scenarios this series did not run, and stamps what it ran
    latest = files["latest.json"]
    assert latest["floor"] == earlier["floor"] and "runs" not in latest
    stamp = latest["smoke"].pop("measured")
    assert latest["smoke"] == results["smoke"]
    assert stamp["date"] == dated.removesuffix(".json") and stamp["runs"] == 1
    assert len(stamp["commit"].split("+")[0]) >= 7
    smoke = results["smoke"]
    assert set(smoke) >= REQUIRED
    assert (smoke["agents"], smoke["events_per_s"], smoke["clients"]) == (10, 5, 3)
    assert smoke["seconds"] == 1 and smoke["emitted"] >= 2
    assert smoke["recorded"] == smoke["emitted"]
    assert smoke["lost"] == 0 and smoke["ideal_lost"] == 0
    assert smoke["delivered_per_client_min"] == smoke["emitted"]
    assert 0 < smoke["p50_ms"] <= smoke["p99_ms"] <= smoke["max_ms"]
    assert 0 < smoke["ideal_p50_ms"] <= smoke["ideal_p99_ms"]
    assert smoke["web_rss_mb"] > 0 and smoke["web_cpu_s_per_s"] > 0
    assert "smoke" in run.stdout  # the table
    # what the window's events waited behind on the one process's loop
    loop = smoke["loop"]["web"]
    assert loop["all"]["count"] > smoke["emitted"] and loop["by_cpu"]
    assert all(name.startswith(("task ", "callback ")) for name in loop["by_cpu"])
    # the CPU while the load ran, over the events it brought
    per_event = smoke["web_cpu_pct"] / 100 * smoke["load_s"] / smoke["emitted"]
    assert smoke["web_cpu_s_per_1k_events"] == pytest.approx(1000 * per_event, rel=0.1, abs=0.01)
    # `--runs N` reports what `median_of` makes of the runs' results: here of this run and
    # a second, slower one (a second whole run of the scenario would prove no more)
    slower = {k: v * 3 if figure(v) else v for k, v in smoke.items()}
    second = {**results, "smoke": slower | {"lost": 1, "p99_vs_ideal": None}}
    runs = copy.deepcopy([results["smoke"], second["smoke"]])
    medians = median_of([results, second])
    assert medians["runs"] == 2 and [results["smoke"], second["smoke"]] == runs  # untouched
    # each figure is the median of the runs' own (of two: their mean), and each run's is kept
    for key in ("p99_ms", "web_cpu_s_per_s", "emitted", "web_rss_mb"):
        assert medians["smoke"][key] == round((runs[0][key] + runs[1][key]) / 2, 3)
    assert medians["smoke"]["per_run"]["p99_ms"] == [r["p99_ms"] for r in runs]
    assert medians["smoke"]["per_run"]["lost"] == [0, 1]
    # a run without a figure (no ideal to compare with) leaves the other's
    assert medians["smoke"]["p99_vs_ideal"] == smoke["p99_vs_ideal"]
    assert medians["smoke"]["client_errors"] == smoke["client_errors"]  # not a figure: the first's


def test_it_measures_recording_and_seeking_the_floor_replay(tmp_path):
    run = bench("replay_smoke", tmp_path)
    got = json.loads((tmp_path / "latest.json").read_text())["replay_smoke"]
    assert (got["agents"], got["events_per_s"]) == (50, 50)
    assert got["events"] >= 50 * 120 and got["states"] >= 120 // 15
    assert got["write_events_per_s"] > 50 and got["loop_us_per_event"] > 0
    assert 0 < got["seek_p50_ms"] <= got["seek_p99_ms"] <= got["seek_max_ms"]
    assert got["table_mb"] > 0 and got["bytes_per_event"] > 0 and got["mb_per_day"] > 0
    assert "replay_smoke" in run.stdout


def test_it_measures_a_small_backfill_while_the_floor_moves(tmp_path):
    bench("backfill_smoke", tmp_path)
    result = json.loads((tmp_path / "latest.json").read_text())["backfill_smoke"]
    assert (result["agents"], result["events_per_s"]) == (40, 20)
    assert 0 < result["today_s"] <= result["backfill_s"]
    assert result["pushes_during"] > 0 and result["live_p99_ms_after"] > 0
    assert result["push_tiles_max_during"] >= 1 and result["peer_lag_ms_max"] >= 0
    assert result["dashboard_cores_during"] > 0 and result["dashboard_cores_after"] > 0
    assert result["peer_cores_during"] > 0


def test_it_measures_what_changed_at_a_thousand_agents(tmp_path):
    bench("whatchanged_smoke", tmp_path)
    got = json.loads((tmp_path / "latest.json").read_text())["whatchanged_smoke"]
    assert got["agents"] == 1000 and got["evals"] == 10
    assert got["changes_found"] >= 3  # the surge: offered, completed, service level, goals
    assert got["whatchanged_ms_per_eval"] > 0
