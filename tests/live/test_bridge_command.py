"""`manage.py bridge` runs on its own against the service and stops cleanly."""

import os
import signal
import subprocess
import sys
import threading
import time

from tests.servers import ROOT
from tests.simulator_process import stop_process


def test_it_connects_and_stops_on_sigterm(simulator, tmp_path):
    env = {
        **os.environ,
        "UPSTREAM_BASE_URL": simulator.base_url,
        "UPSTREAM_AUTH_URL": simulator.auth_url,
        "UPSTREAM_EMAIL": simulator.email_a,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }
    migrate(env)
    bridge, lines = start_bridge(env)
    deadline = time.monotonic() + 20
    while not any("upstream connected" in line for line in lines):
        assert bridge.poll() is None and time.monotonic() < deadline, "".join(lines)
        time.sleep(0.1)
    bridge.send_signal(signal.SIGTERM)
    assert bridge.wait(10) == 0
    assert simulator.password not in "".join(lines)


def test_it_hands_the_lease_over_at_once_on_sigterm(simulator, redis_url, tmp_path):
    """With a 30 s lease, only a release on a clean stop explains a quick hand-over."""
    env = {
        **os.environ,
        "UPSTREAM_BASE_URL": simulator.base_url,
        "UPSTREAM_AUTH_URL": simulator.auth_url,
        "UPSTREAM_EMAIL": simulator.email_a,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "REDIS_URL": redis_url,
        "BRIDGE_LEASE_S": "30",
    }
    migrate(env)
    bridges = [start_bridge(env) for _ in range(2)]
    try:
        deadline = time.monotonic() + 30
        while not any(said(lines, "upstream connected") for _, lines in bridges):
            assert time.monotonic() < deadline, "no bridge connected"
            time.sleep(0.1)
        (leader, _), (standby, standby_lines) = sorted(
            bridges, key=lambda b: not said(b[1], "leading")
        )
        while not said(standby_lines, "following"):
            assert time.monotonic() < deadline, "".join(standby_lines)
            time.sleep(0.1)
        assert not said(standby_lines, "leading")
        leader.send_signal(signal.SIGTERM)
        stopped = time.monotonic()
        assert leader.wait(10) == 0
        while not said(standby_lines, "upstream connected"):
            assert time.monotonic() - stopped < 10, "".join(standby_lines)
            time.sleep(0.1)
    finally:
        for process, _ in bridges:
            stop_process(process)


def migrate(env):
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)


def start_bridge(env) -> tuple[subprocess.Popen, list[str]]:
    """`manage.py bridge`, and the lines it prints as they come."""
    process = subprocess.Popen(
        [sys.executable, "manage.py", "bridge"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines = []
    threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True).start()
    return process, lines


def said(lines, text):
    return any(text in line for line in lines)
