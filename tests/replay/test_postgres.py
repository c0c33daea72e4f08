"""The recorder and the seek on PostgreSQL, production's database: a short day recorded
and its moments shown, through the replay benchmark's own run."""

import json
import subprocess
import sys

from dashboard.testing.processes import ROOT


def test_a_day_is_recorded_and_shown_on_postgresql(postgres_url):
    run = subprocess.run(
        [sys.executable, "-m", "bench.replay", f"--database-url={postgres_url}"]
        + ["--agents=30", "--rate=30", "--seconds=60", "--seeks=10"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert got["events"] >= 30 * 60 and got["states"] >= 60 // 15
    assert got["table_mb"] > 0 and 0 < got["seek_p50_ms"] <= got["seek_p99_ms"]
