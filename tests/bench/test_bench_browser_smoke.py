"""`make bench`'s browser scenarios end to end on a tiny floor: Chromium's event-to-paint
and the windowed live view (a module of their own, so another worker can take them)."""

import json

from dashboard.testing.benchmarks import bench


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
