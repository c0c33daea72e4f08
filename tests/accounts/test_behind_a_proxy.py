"""Behind a proxy, the sign-in throttle and the audit log count by the address the trusted
proxy saw, not by what the client wrote in X-Forwarded-For: a production web worker
(`python -m dashboard.live.web --proxy-headers`) with TRUSTED_PROXIES=1, the test playing
the client and the proxy (which appends the address it was reached from, as nginx's
`$proxy_add_x_forwarded_for` does)."""

import os

import httpx
import pytest

from dashboard.testing import httpclient
from dashboard.testing.processes import free_port, wait_until
from dashboard.testing.servers import USER_PASSWORD, manage, migrated_sqlite, start_worker

LIMIT = 10  # SIGNIN_FAILURE_LIMIT's default
ATTACKER, VICTIM = "198.51.100.66", "198.51.100.9"


@pytest.fixture(scope="module")
def worker(tmp_path_factory):
    port = free_port()
    env = {**os.environ, "REDIS_URL": "", "TRUSTED_PROXIES": "1", "LOG_LEVEL": "INFO"}
    env["DATABASE_URL"] = migrated_sqlite(tmp_path_factory.mktemp("proxy") / "web.sqlite3")
    env.pop("DJANGO_SETTINGS_MODULE", None)
    manage(env, "adduser", "bob", "--role", "supervisor", "--password", USER_PASSWORD)
    manage(env, "adduser", "carol", "--role", "supervisor", "--password", USER_PASSWORD)
    process = start_worker(env, port, "--proxy-headers")
    url = f"http://127.0.0.1:{port}"
    try:
        healthy = lambda: httpclient.get(f"{url}/healthz", timeout=1).status_code == 200  # noqa: E731
        wait_until(healthy, 30, "the web worker answers", ignoring=(httpx.HTTPError,))
        yield url, process
    finally:
        process.stop()


def sign_in(url: str, username: str, password: str, forwarded_for: str) -> int:
    """One sign-in through the form, with the X-Forwarded-For the proxy passes on."""
    with httpx.Client(base_url=url, timeout=30) as client:
        client.get("/accounts/login/", headers={"X-Forwarded-For": forwarded_for})
        form = {
            "username": username,
            "password": password,
            "csrfmiddlewaretoken": client.cookies["csrftoken"],
        }
        r = client.post("/accounts/login/", data=form, headers={"X-Forwarded-For": forwarded_for})
        return r.status_code


def test_a_made_up_forwarded_address_on_each_try_does_not_escape_the_throttle(worker):
    url, process = worker
    statuses = [
        sign_in(url, f"guess-{n}", "wrong", f"203.0.113.{n + 1}, {ATTACKER}") for n in range(14)
    ]
    assert statuses[: LIMIT - 1] == [200] * (LIMIT - 1)  # "did not match"
    assert set(statuses[LIMIT:]) == {429}  # paused, whatever the client wrote
    assert sign_in(url, "bob", USER_PASSWORD, f"203.0.113.99, {ATTACKER}") == 429
    log = process.log()
    assert f"sign-in failed for 'guess-0' from {ATTACKER}" in log
    assert "from 203.0.113." not in log
    assert ATTACKER in log and "sign-in paused" in log


def test_failures_sent_with_someone_elses_address_do_not_lock_that_address_out(worker):
    url, process = worker
    other = "198.51.100.67"  # another attacker than the first test's, not yet paused
    for n in range(LIMIT):
        assert sign_in(url, f"try-{n}", "wrong", f"{VICTIM}, {other}") in (200, 429)
    assert sign_in(url, "carol", USER_PASSWORD, VICTIM) == 302  # the victim, through the proxy
    assert f"sign-in failed for 'try-0' from {other}" in process.log()
    assert f"from {VICTIM}" not in process.log()
