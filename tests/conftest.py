"""The harness (dashboard/testing/) is the tests' one library; its fixtures are a plugin."""

pytest_plugins = ["dashboard.testing.fixtures"]


# The slowest modules, collected first: the workers take whole modules in collection order,
# so a long module collected last would run on its own at the end of the suite.
SLOW_FIRST = [
    "tests/wallboard/test_browser.py",
    "tests/accessibility/test_axe.py",
    "tests/reports/test_browser.py",
    "tests/live/test_browser.py",
    "tests/replay/test_browser.py",
    "tests/replay/test_replayed_equals_live.py",
    "tests/alerts/test_alerting.py",
    "tests/alerts/test_browser.py",
    "tests/upstream/test_bridge.py",
    "tests/reliability/test_faults.py",
    "tests/simulator/test_simulator.py",
    "tests/wallboard/test_stale.py",
    "tests/reliability/test_webhook_flood.py",
    "tests/reliability/test_stack_faults.py",
]


def pytest_collection_modifyitems(items):
    rank = {path: n for n, path in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.partition("::")[0], len(rank)))
