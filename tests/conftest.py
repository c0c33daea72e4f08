"""The harness (dashboard/testing/) is the tests' one library; its fixtures are a plugin."""

pytest_plugins = ["dashboard.testing.fixtures"]


# The slowest modules, collected first: the workers take whole modules in collection order,
# so a long module collected last would run on its own at the end of the suite.
SLOW_FIRST = [  # by their time in a full run, slowest first
    "tests/reliability/test_bad_input.py",
    "tests/wallboard/test_browser.py",
    "tests/accessibility/test_axe.py",
    "tests/history/test_truth.py",
    "tests/normal/test_filling.py",
    "tests/bench/test_bench_browser_smoke.py",
    "tests/bench/test_bench_floor_smoke.py",
    "tests/reliability/test_stack_faults.py",
    "tests/inbound/test_voicemail.py",
    "tests/simulator/test_simulator.py",
    "tests/bench/test_bench_smoke.py",
    "tests/wallboard/test_catching_up.py",
    "tests/live/test_browser_devices.py",
    "tests/live/test_server_fanout.py",
    "tests/history/test_filling_pages.py",
    "tests/upstream/test_bridge.py",
    "tests/reliability/test_recovery.py",
    "tests/alerts/test_browser.py",
    "tests/drilldown/test_browser.py",
    "tests/reliability/test_faults.py",
    "tests/reliability/test_access.py",
    "tests/live/test_browser.py",
    "tests/alerts/test_alerting.py",
    "tests/alerts/test_grouping.py",
    "tests/replay/test_browser.py",
    "tests/accessibility/test_themes_and_views.py",
    "tests/reports/test_browser.py",
    "tests/interventions/test_browser.py",
    "tests/wallboard/test_stale.py",
    "tests/inbound/test_live_view.py",
    "tests/normal/test_history.py",
    "tests/inbound/test_alerts.py",
    "tests/reports/test_day_restart.py",
    "tests/reliability/test_webhook_flood.py",
    "tests/normal/test_shaped_history.py",
    "tests/accessibility/test_keyboard.py",
    "tests/live/test_leader.py",
    "tests/simulator/test_outbound.py",
    "tests/inbound/test_queues.py",
    "tests/live/test_windowed_grid.py",
]


def pytest_collection_modifyitems(items):
    rank = {path: n for n, path in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.partition("::")[0], len(rank)))
