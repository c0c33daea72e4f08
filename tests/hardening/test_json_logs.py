"""LOG_FORMAT=json: a production web worker writes one JSON object per line (time, level,
logger, message and the record's context), its access log included, with no secret in
any of them; the default stays readable text."""

import json
import os

import httpx
import pytest

from dashboard.testing import httpclient
from dashboard.testing.processes import free_port, wait_until
from dashboard.testing.servers import USER_PASSWORD, manage, migrated_sqlite, start_worker

PASSWORD_TRIED = "hunter2-json-secret"
KIOSK_TOKEN = "kiosk-token-json-secret"


def worker_log(tmp_path, log_format: str) -> str:
    """A worker's whole log after a wrong password and a kiosk link that is not one."""
    port = free_port()
    env = {**os.environ, "REDIS_URL": "", "LOG_FORMAT": log_format, "LOG_LEVEL": "INFO"}
    env["DATABASE_URL"] = migrated_sqlite(tmp_path / "web.sqlite3")
    env.pop("DJANGO_SETTINGS_MODULE", None)
    manage(env, "adduser", "bob", "--role", "supervisor", "--password", USER_PASSWORD)
    process = start_worker(env, port)
    url = f"http://127.0.0.1:{port}"
    try:
        healthy = lambda: httpclient.get(f"{url}/healthz", timeout=1).status_code == 200  # noqa: E731
        wait_until(healthy, 30, "the web worker answers", ignoring=(httpx.HTTPError,))
        with httpx.Client(base_url=url, timeout=30) as client:
            client.get("/accounts/login/")
            form = {"username": "bob", "password": PASSWORD_TRIED}
            form["csrfmiddlewaretoken"] = client.cookies["csrftoken"]
            assert client.post("/accounts/login/", data=form).status_code == 200
            assert client.get(f"/wallboard/{KIOSK_TOKEN}/").status_code == 404
        wait_until(lambda: "Not Found" in process.log(), 10, "the 404 logged")
    finally:
        process.stop()
    return process.log()


def test_json_lines_carry_the_fields_and_no_secret(tmp_path):
    log = worker_log(tmp_path, "json")
    lines = [json.loads(line) for line in log.splitlines() if line.strip()]  # each one parses
    assert all({"time", "level", "logger", "message"} <= set(line) for line in lines)
    (failed,) = [line for line in lines if line["logger"] == "dashboard.accounts.audit"]
    assert failed["level"] == "WARNING"
    assert failed["message"] == "sign-in failed for 'bob' from 127.0.0.1"
    (refused,) = [line for line in lines if line["message"].startswith("Not Found")]
    assert refused["message"] == "Not Found: /wallboard/[redacted]/"
    assert refused["status_code"] == 404 and refused["method"] == "GET"
    assert refused["path"] == "/wallboard/[redacted]/"
    access = [line for line in lines if line["logger"] == "dashboard.access"]
    (kiosk,) = [line for line in access if "/wallboard/" in line["message"]]
    assert '"GET /wallboard/[redacted]/" 404' in kiosk["message"]
    assert kiosk["status"] == 404 and kiosk["client"].startswith("127.0.0.1:")
    assert PASSWORD_TRIED not in log and KIOSK_TOKEN not in log


def test_the_default_stays_readable_text_without_secrets(tmp_path):
    log = worker_log(tmp_path, "text")
    assert "WARNING dashboard.accounts.audit: sign-in failed for 'bob' from 127.0.0.1" in log
    assert "Not Found: /wallboard/[redacted]/" in log
    assert '"GET /wallboard/[redacted]/" 404' in log  # the access log, as every line
    assert PASSWORD_TRIED not in log and KIOSK_TOKEN not in log
    with pytest.raises(json.JSONDecodeError):
        json.loads(log.splitlines()[0])
