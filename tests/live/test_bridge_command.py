"""`manage.py bridge` runs on its own against the service and stops cleanly."""

import signal
import time

from dashboard.testing.processes import wait_until
from dashboard.testing.servers import dashboard_env, migrated_sqlite, start_bridge


def test_it_connects_and_stops_on_sigterm(simulator, tmp_path):
    env = dashboard_env(simulator, migrated_sqlite(tmp_path / "db.sqlite3"))
    bridge = start_bridge(env)
    try:
        wait_until(lambda: bridge.said("upstream connected"), 20, bridge.log)
        bridge.signal(signal.SIGTERM)
        assert bridge.popen.wait(10) == 0
        assert simulator.password not in bridge.log()
    finally:
        bridge.stop()


def test_it_hands_the_lease_over_at_once_on_sigterm(simulator, redis_url, tmp_path):
    """With a 30 s lease, only a release on a clean stop explains a quick hand-over."""
    env = dashboard_env(
        simulator,
        migrated_sqlite(tmp_path / "db.sqlite3"),
        REDIS_URL=redis_url,
        BRIDGE_LEASE_S=30,
    )
    bridges = [start_bridge(env) for _ in range(2)]
    try:
        wait_until(
            lambda: any(b.said("upstream connected") for b in bridges), 30, "a bridge connected"
        )
        leader, standby = sorted(bridges, key=lambda b: not b.said("leading"))
        wait_until(lambda: standby.said("following"), 30, standby.log)
        assert not standby.said("leading")
        leader.signal(signal.SIGTERM)
        stopped = time.monotonic()
        assert leader.popen.wait(10) == 0
        # Room for a loaded machine to stop one and sign the other in, well under the ~24 s
        # the 30 s lease (renewed every 6 s) would take to lapse without the release.
        left = 20 - (time.monotonic() - stopped)
        wait_until(lambda: standby.said("upstream connected"), left, standby.log)
    finally:
        for bridge in bridges:
            bridge.stop()
