"""/readyz says plainly why the dashboard is not ready, from a real server process."""

import httpx
import pytest

from dashboard.testing.processes import wait_until
from dashboard.testing.servers import start_dashboard


def readyz_when(server, predicate, timeout=20):
    """The first /readyz answer that satisfies `predicate`."""

    def answer():
        r = httpx.get(f"{server.url}/readyz", timeout=2)
        return r if predicate(r) else None

    return wait_until(answer, timeout, "/readyz's answer", interval=0.2)


def test_it_is_ready_once_signed_in_and_joined(dashboard_server):
    r = httpx.get(f"{dashboard_server.url}/readyz")
    assert (r.status_code, r.json()["upstream"]) == (200, "connected")


@pytest.mark.parametrize(
    ("env", "reason"),
    [
        ({"UPSTREAM_EMAIL": "mfa-a@sim.local"}, "mfa_required"),
        ({"UPSTREAM_PASSWORD": "wrong-password"}, "bad_credentials"),
        ({"UPSTREAM_ANON_KEY": "wrong-key"}, "bad_anon_key"),
    ],
)
def test_it_says_not_ready_and_names_the_sign_in_failure_in_the_log_only(
    module_simulator, tmp_path, env, reason
):
    """/readyz is public: the service's error text and the organisation's id stay in the
    log, where the operator reads the reason."""
    server = start_dashboard(module_simulator, tmp_path, env, wait_ready=False)
    try:
        r = readyz_when(server, lambda r: r.json()["upstream"] == "config_error")
        assert r.status_code == 503
        assert set(r.json()) == {"ready", "upstream", "since"}
        assert "Invalid" not in r.text and "MFA" not in r.text
        assert module_simulator.org_a not in r.text
        wait_until(lambda: reason in server.log(), 5, "the reason in the log")
        assert f"upstream config_error: {reason}" in server.log()
        assert env.get("UPSTREAM_PASSWORD", "sim-password") not in server.log()
    finally:
        server.stop()


def test_it_is_not_ready_while_the_service_refuses_sockets(dashboard_server, simulator):
    simulator.control("refuse-sockets", seconds=4)
    simulator.control("drop-sockets")
    r = readyz_when(dashboard_server, lambda r: r.status_code == 503, timeout=5)
    assert r.status_code == 503 and r.json()["upstream"] in ("disconnected", "connecting")
    r = readyz_when(dashboard_server, lambda r: r.status_code == 200, timeout=20)
    assert r.status_code == 200
