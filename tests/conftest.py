"""The harness (dashboard/testing/) is the tests' one library; its fixtures are a plugin."""

pytest_plugins = ["dashboard.testing.fixtures"]
