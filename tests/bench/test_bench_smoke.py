"""`make bench` end to end on a tiny scenario: the whole pipeline runs and nothing is lost."""

import copy
import json
import sys

import pytest

from bench.run import figure, median_of
from dashboard.testing.processes import command_env, run

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


def bench(scenario: str, out, *more: str, timeout: float = 170):
    """`python -m bench.run` on one scenario, its results in `out`; it must succeed. It
    runs as `make bench` runs it: without pytest-django's DJANGO_SETTINGS_MODULE."""
    result = run(
        [sys.executable, "-m", "bench.run", "--scenarios", scenario, "--out", str(out)]
        + ["--no-plot", *more],
        env=command_env(),
        timeout=timeout,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def test_it_measures_a_tiny_scenario_end_to_end_and_reports_medians_of_runs(tmp_path):
    run = bench("smoke", tmp_path)
    files = {p.name: json.loads(p.read_text()) for p in tmp_path.glob("*.json")}
    [dated] = [n for n in files if n.count("-") == 2 and n != "latest.json"]
    results = files["latest.json"]
    assert files[dated] == results and "runs" not in results  # one run: its own figures
    smoke = results["smoke"]
    assert set(smoke) >= REQUIRED
    assert (smoke["agents"], smoke["events_per_s"], smoke["clients"]) == (10, 5, 3)
    assert smoke["emitted"] >= 5 and smoke["recorded"] == smoke["emitted"]
    assert smoke["lost"] == 0 and smoke["ideal_lost"] == 0
    assert smoke["delivered_per_client_min"] == smoke["emitted"]
    assert 0 < smoke["p50_ms"] <= smoke["p99_ms"] <= smoke["max_ms"]
    assert 0 < smoke["ideal_p50_ms"] <= smoke["ideal_p99_ms"]
    assert smoke["web_rss_mb"] > 0 and smoke["web_cpu_s_per_s"] > 0
    assert "smoke" in run.stdout  # the table
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


def test_a_shorter_window_is_asked_for_and_cpu_is_given_per_thousand_events(tmp_path):
    bench("smoke", tmp_path, "--seconds", "1")
    smoke = json.loads((tmp_path / "latest.json").read_text())["smoke"]
    assert smoke["seconds"] == 1 and smoke["emitted"] >= 2
    # the CPU while the load ran, over the events it brought
    per_event = smoke["web_cpu_pct"] / 100 * smoke["load_s"] / smoke["emitted"]
    assert smoke["web_cpu_s_per_1k_events"] == pytest.approx(1000 * per_event, rel=0.1, abs=0.01)


def test_it_measures_event_to_paint_in_chromium(tmp_path):
    run = bench("browser_smoke", tmp_path)
    pages = json.loads((tmp_path / "latest.json").read_text())["browser_smoke"]["pages"]
    assert set(pages) == {"live", "wallboard"}
    for page in pages.values():
        assert page["tiles"] == 10 and page["painted"] >= 1 and page["lost"] == 0
        assert 0 < page["paint_p50_ms"] <= page["paint_p99_ms"]
        assert 0 < page["main_busy_pct"] < 100 and page["fps"] > 0
        assert page["console_errors"] == []
    assert "browser_smoke" in run.stdout  # the table


def test_it_measures_a_windowed_live_view_still_scrolling_and_filtering(tmp_path):
    run = bench("browser10k_smoke", tmp_path)
    got = json.loads((tmp_path / "latest.json").read_text())["browser10k_smoke"]
    assert (got["agents"], got["events_per_s"]) == (300, 20) and got["console_errors"] == []
    assert got["heap_mb"] > 0 and got["dom_nodes"] > 0 and got["lost"] == 0
    assert got["patch_tiles"] > 0 and got["patch_dom_changes_per_tile"] > 0
    still, scroll, filtering = (got["phases"][name] for name in ("still", "scroll", "filter"))
    assert 0 < still["tiles_in_page"] < 300 and still["shown"] == "300 of 300 agents"
    assert still["pushes"] > 0 and still["tiles_received"] > 0
    assert all(p["fps"] > 0 and p["renderer_cpu_ms_per_tile_received"] > 0 for p in (still, scroll))
    assert scroll["dom_changes_per_frame"] > 0  # the window drew other rows as it scrolled
    assert filtering["dom_changes_per_frame"] > 0  # and other tiles as the filters changed
    assert "browser10k_smoke" in run.stdout


def test_it_measures_recording_and_seeking_the_floor_replay(tmp_path):
    run = bench("replay_smoke", tmp_path)
    got = json.loads((tmp_path / "latest.json").read_text())["replay_smoke"]
    assert (got["agents"], got["events_per_s"]) == (50, 50)
    assert got["events"] >= 50 * 120 and got["states"] >= 120 // 15
    assert got["write_events_per_s"] > 50 and got["loop_us_per_event"] > 0
    assert 0 < got["seek_p50_ms"] <= got["seek_p99_ms"] <= got["seek_max_ms"]
    assert got["table_mb"] > 0 and got["bytes_per_event"] > 0 and got["mb_per_day"] > 0
    assert "replay_smoke" in run.stdout


def test_it_measures_the_alerts_and_chat_posts_a_floor_makes(tmp_path):
    run = bench("alerts_smoke", tmp_path)
    got = json.loads((tmp_path / "latest.json").read_text())["alerts_smoke"]
    assert (got["agents"], got["events_per_s"]) == (40, 20) and got["seconds"] >= 20
    assert got["alerts_raised"] == sum(got["raised_by_rule"].values())
    assert got["chat_posts"] <= got["transitions_posted"]
    assert 0 <= got["largest_burst_posts_per_minute"] <= got["chat_posts"]
    assert "alerts_smoke" in run.stdout


def test_it_measures_a_small_backfill_while_the_floor_moves(tmp_path):
    bench("backfill_smoke", tmp_path)
    result = json.loads((tmp_path / "latest.json").read_text())["backfill_smoke"]
    assert (result["agents"], result["events_per_s"]) == (40, 20)
    assert 0 < result["today_s"] <= result["backfill_s"]
    assert result["pushes_during"] > 0 and result["live_p99_ms_after"] > 0


def test_it_measures_what_changed_at_a_thousand_agents(tmp_path):
    bench("whatchanged_smoke", tmp_path)
    got = json.loads((tmp_path / "latest.json").read_text())["whatchanged_smoke"]
    assert got["agents"] == 1000 and got["evals"] == 10
    assert got["changes_found"] >= 3  # the surge: offered, completed, service level, goals
    assert got["whatchanged_ms_per_eval"] > 0


def test_it_measures_the_databases_growth_an_event(tmp_path):
    run = bench("storage_smoke", tmp_path)
    got = json.loads((tmp_path / "latest.json").read_text())["storage_smoke"]
    assert (got["agents"], got["events_per_s"]) == (40, 20) and got["events_applied"] > 0
    assert got["bytes_grown"] > 0 and got["bytes_per_event"] > 0
    assert got["bytes_per_event_by_table"]  # where it went
    assert "storage_smoke" in run.stdout


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
