"""The production web worker when a part of the stack misbehaves under it: a Redis that
stalls makes /readyz answer 503 at once (not a probe that hangs), and a database that
dropped its connections (as a restart does) costs no websocket handshake a 500."""

import os
import signal

import httpx
import psycopg
import redis

from dashboard.testing import httpclient
from dashboard.testing.processes import free_port, wait_until
from dashboard.testing.raw_socket import RawSocket
from dashboard.testing.servers import (
    USER_PASSWORD,
    manage,
    migrated_sqlite,
    session_cookie,
    start_worker,
)

SOCKETS = 8  # handshakes, spread over the loop's worker threads
PROBE_TIMEOUT_S = 15  # far beyond the health cache's 1 s; a hung probe runs into it


def worker(env: dict):
    port = free_port()
    env = {**os.environ, "REDIS_URL": "", **env}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    manage(env, "migrate", "--noinput", "-v0")
    manage(env, "adduser", "bob", "--role", "supervisor", "--password", USER_PASSWORD)
    process = start_worker(env, port)
    url = f"http://127.0.0.1:{port}"
    healthy = lambda: httpclient.get(f"{url}/healthz", timeout=1).status_code == 200  # noqa: E731
    try:
        wait_until(healthy, 30, "the web worker answers", ignoring=(httpx.HTTPError,))
    except AssertionError:
        process.stop()
        raise
    return url, process


def test_readyz_answers_503_at_once_while_redis_stalls(redis_url, tmp_path):
    url, process = worker(
        {"REDIS_URL": redis_url, "DATABASE_URL": migrated_sqlite(tmp_path / "web.sqlite3")}
    )
    store = redis.Redis.from_url(redis_url)
    pid = store.info()["process_id"]
    try:
        assert httpx.get(f"{url}/readyz", timeout=PROBE_TIMEOUT_S).json()["upstream"] == "starting"
        os.kill(pid, signal.SIGSTOP)  # frozen: connections stay open, nothing answers
        r = httpx.get(f"{url}/readyz", timeout=PROBE_TIMEOUT_S)
        assert r.status_code == 503
        assert r.json() == {"ready": False, "upstream": "cache_unreachable", "since": ""}
        assert httpx.get(f"{url}/healthz", timeout=PROBE_TIMEOUT_S).status_code == 200
        os.kill(pid, signal.SIGCONT)
        r = httpx.get(f"{url}/readyz", timeout=PROBE_TIMEOUT_S)
        assert r.json()["upstream"] == "starting"  # Redis again; no bridge in this test
        assert "readyz: the cache did not answer (TimeoutError)" in process.log()
        assert "Traceback" not in process.log()
    finally:
        os.kill(pid, signal.SIGCONT)
        process.stop()


def test_sockets_opened_after_the_database_dropped_its_connections_are_served(postgres_url):
    """Websocket handshakes look the session up in the loop's worker threads, which keep
    their connections (CONN_MAX_AGE); each is checked before reuse."""
    url, process = worker({"DATABASE_URL": postgres_url})
    try:
        cookie = "Cookie: " + session_cookie(url, "bob")

        def live_socket():
            ws = RawSocket(url, "/ws/live/", [cookie])  # asserts the 101
            assert "waiting for the feed" in ws.text()  # no bridge here
            ws.close()

        for _ in range(SOCKETS):
            live_socket()
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            dropped = admin.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchone()[0]
        assert dropped >= 1  # the worker's kept connections
        for _ in range(SOCKETS):
            live_socket()
        assert "Traceback" not in process.log()
    finally:
        process.stop()
