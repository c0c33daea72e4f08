"""`manage.py bridge` runs on its own against the service and stops cleanly."""

import os
import signal
import subprocess
import sys
import threading
import time

from tests.servers import ROOT


def test_it_connects_and_stops_on_sigterm(simulator, tmp_path):
    env = {
        **os.environ,
        "UPSTREAM_BASE_URL": simulator.base_url,
        "UPSTREAM_AUTH_URL": simulator.auth_url,
        "UPSTREAM_EMAIL": simulator.email_a,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    bridge = subprocess.Popen(
        [sys.executable, "manage.py", "bridge"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines = []
    threading.Thread(target=lambda: lines.extend(bridge.stdout), daemon=True).start()
    deadline = time.monotonic() + 20
    while not any("upstream connected" in line for line in lines):
        assert bridge.poll() is None and time.monotonic() < deadline, "".join(lines)
        time.sleep(0.1)
    bridge.send_signal(signal.SIGTERM)
    assert bridge.wait(10) == 0
    assert simulator.password not in "".join(lines)
