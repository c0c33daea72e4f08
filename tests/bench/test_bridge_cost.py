"""`python -m bench.bridge_cost` end to end on a small floor: the production bridge's CPU
per event and its event loop's callbacks, timed by the hook it loads in the processes."""

import json
import sys

from dashboard.testing.processes import command_env, run


def test_it_measures_the_bridges_cpu_and_its_loops_callbacks_on_a_small_floor():
    args = ["--agents", "40", "--teams", "4", "--rate", "20", "--seconds", "2", "--windows", "1"]
    result = run([sys.executable, "-m", "bench.bridge_cost", *args], env=command_env(), timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    [window] = [json.loads(x) for x in result.stdout.splitlines() if x.startswith("{")]
    assert window["events"] >= 20 and window["applied"] == window["events"]  # none skipped
    assert window["bridge_cpu_s"] > 0 and window["bridge_cpu_s_per_1k_events"] > 0
    loop = window["loop"]
    assert loop["all"]["count"] > window["events"]  # each event is a callback or more
    assert all(name.startswith(("task ", "callback ")) for name in loop["by_cpu"])
    assert loop["all"]["over_5ms"] >= loop["all"]["over_20ms"] >= loop["all"]["over_50ms"]
