"""Sign-in throttling: too many failures for one account, or from one address, pause
sign-in for it (the right password included) with a page that says so; each failure is
logged, never its password."""

import io
import json
import logging

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.test import Client

from dashboard.shared.logs import JsonFormatter
from dashboard.testing.people import PASSWORD

LIMIT = settings.AXES_FAILURE_LIMIT


@pytest.fixture(autouse=True)
def quick_hashes(settings):
    """Dozens of sign-ins: a hasher that is quick to check (autouse: before the users)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def sign_in(client, username, password, address="127.0.0.1"):
    return client.post(
        "/accounts/login/", {"username": username, "password": password}, REMOTE_ADDR=address
    )


def test_too_many_wrong_passwords_pause_the_account_with_a_clear_page(bob, client):
    for n in range(LIMIT - 1):
        assert sign_in(client, "bob", f"wrong-{n}").status_code == 200  # "did not match"
    r = sign_in(client, "bob", "wrong-last")
    assert r.status_code == 429
    page = r.content.decode()
    assert "Sign-in paused" in page and "Too many failed sign-ins" in page
    assert "paused for 15 minutes" in page
    r = sign_in(client, "bob", PASSWORD)  # the right one no longer gets through
    assert r.status_code == 429 and "_auth_user_id" not in client.session


def test_the_pause_is_per_account_whatever_the_address(bob):
    for n in range(LIMIT):
        sign_in(Client(), "bob", "wrong", address=f"10.0.0.{n + 1}")
    assert sign_in(Client(), "bob", PASSWORD, address="10.0.1.1").status_code == 429


def test_the_pause_is_per_address_whatever_the_account(bob, carol):
    for n in range(LIMIT):
        sign_in(Client(), f"guess-{n}", "wrong", address="10.0.2.2")
    assert sign_in(Client(), "carol", PASSWORD, address="10.0.2.2").status_code == 429
    assert sign_in(Client(), "carol", PASSWORD, address="10.0.2.3").status_code == 302


def test_a_success_before_the_limit_starts_the_count_afresh(bob, client):
    for n in range(LIMIT - 1):
        sign_in(client, "bob", f"wrong-{n}")
    assert sign_in(client, "bob", PASSWORD).status_code == 302
    client.post("/accounts/logout/")
    for n in range(LIMIT - 1):
        sign_in(client, "bob", f"wrong-again-{n}")
    assert sign_in(client, "bob", PASSWORD).status_code == 302


def test_a_manager_lifts_a_pause_in_the_admin(alice, bob, client_for):
    for n in range(LIMIT):
        sign_in(Client(), "bob", "wrong", address=f"10.0.3.{n + 1}")
    manager = client_for(alice)
    assert manager.get("/admin/axes/accessattempt/").status_code == 200
    attempt = AccessAttempt.objects.get(username="bob", ip_address="10.0.3.1")
    r = manager.post(f"/admin/axes/accessattempt/{attempt.pk}/delete/", {"post": "yes"})
    assert r.status_code == 302
    AccessAttempt.objects.filter(username="bob").delete()  # the rest, as the list's action does
    assert sign_in(Client(), "bob", PASSWORD, address="10.0.3.99").status_code == 302


@pytest.mark.parametrize("formatter", [None, JsonFormatter()], ids=["text", "json"])
def test_each_failed_sign_in_is_logged_without_its_password(bob, client, formatter):
    (console,) = [h for h in logging.getLogger().handlers if h.get_name() == "console"]
    out = io.StringIO()
    before, text = console.setStream(out), console.formatter
    console.setFormatter(formatter or text)
    try:
        sign_in(client, "bob", "hunter2-secret", address="10.0.4.4")
        sign_in(client, "nobody\nforged line", "hunter3-secret", address="10.0.4.4")
    finally:
        console.setStream(before)
        console.setFormatter(text)
    log = raw = out.getvalue()
    if formatter:  # one object per line, the messages as in text
        log = "\n".join(json.loads(line)["message"] for line in raw.splitlines())
    assert "sign-in failed for 'bob' from 10.0.4.4" in log
    assert "sign-in failed for 'nobody\\nforged line' from 10.0.4.4" in log  # one line each
    assert "hunter2" not in raw and "hunter3" not in raw


@pytest.mark.parametrize("password", ["password", "12345678"])
def test_a_password_change_refuses_common_and_numeric_passwords(bob, client_for, password):
    r = client_for(bob).post(
        "/accounts/password_change/",
        {"old_password": PASSWORD, "new_password1": password, "new_password2": password},
    )
    assert r.status_code == 200
    assert b"too common" in r.content or b"entirely numeric" in r.content
