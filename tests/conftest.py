"""The harness (dashboard/testing/) is the tests' one library; its fixtures are a plugin."""

pytest_plugins = ["dashboard.testing.fixtures"]


# The slowest modules, collected first: the workers take whole modules in collection order,
# so a long module collected last would run on its own at the end of the suite.
SLOW_FIRST = [  # by their time in a full run, slowest first
    "tests/bench/test_bench_floor_smoke.py",
    "tests/bench/test_bench_browser_smoke.py",
    "tests/bench/test_bench_smoke.py",
    "tests/reliability/test_stack_faults.py",
    "tests/live/test_browser.py",
    "tests/reliability/test_bad_input.py",
    "tests/interventions/test_browser.py",
    "tests/live/test_server_fanout.py",
    "tests/accessibility/test_axe.py",
    "tests/accessibility/test_keyboard.py",
    "tests/history/test_truth.py",
    "tests/wallboard/test_browser.py",
    "tests/accessibility/test_themes_and_views.py",
    "tests/accessibility/test_announcements.py",
    "tests/reliability/test_webhook_flood.py",
    "tests/wallboard/test_catching_up.py",
    "tests/alerts/test_browser.py",
    "tests/reliability/test_access.py",
    "tests/quality/test_processing_postgres.py",
    "tests/drilldown/test_browser.py",
    "tests/reliability/test_recovery.py",
    "tests/inbound/test_voicemail.py",
    "tests/reports/test_figures_browser.py",
    "tests/inbound/test_accessibility.py",
    "tests/reliability/test_stack_parts.py",
    "tests/normal/test_shaped_history.py",
    "tests/inbound/test_queues.py",
    "tests/inbound/test_live_path.py",
    "tests/wallboard/test_stale.py",
    "tests/alerts/test_scale_out.py",
    "tests/inbound/test_live_view.py",
    "tests/replay/test_browser.py",
]


def pytest_collection_modifyitems(items):
    rank = {path: n for n, path in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.partition("::")[0], len(rank)))
