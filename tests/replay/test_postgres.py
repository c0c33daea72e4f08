"""The recorder and the seek on PostgreSQL, production's database: a short day recorded
and its moments shown, through the replay benchmark's own run."""

import json
import sys

from dashboard.testing.processes import last_line, run


def test_a_day_is_recorded_and_shown_on_postgresql(postgres_url):
    replay = run(
        [sys.executable, "-m", "bench.replay", f"--database-url={postgres_url}"]
        + ["--agents=30", "--rate=30", "--seconds=60", "--seeks=10"],
    )
    got = json.loads(last_line(replay))
    assert got["events"] >= 30 * 60 and got["states"] >= 60 // 15
    assert got["table_mb"] > 0 and 0 < got["seek_p50_ms"] <= got["seek_p99_ms"]
