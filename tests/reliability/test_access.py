"""Who gets in where: every page and socket of the URL conf signed out and with each role,
CSRF on every form, the security headers on every page, and the production settings'
secure cookies and HSTS."""

import json
import re

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.utils import timezone

from dashboard.accounts.roles import MANAGER, RANK, SUPERVISOR, WALLBOARD
from dashboard.quality.models import CoachingAlert
from dashboard.testing.links import make_link
from dashboard.testing.processes import command_env, last_line, run_manage
from dashboard.testing.routes import PUBLIC, SIGNED_IN, pages, routes, sockets
from dashboard.testing.sockets import closed_with, communicator, session_cookie_for

pytestmark = pytest.mark.django_db
LOGIN_PAGES = ("/accounts/login/?next=", "/admin/login/?next=")
ADMIN_PAGES = {"/admin/", "/admin/live/", "/admin/live/thresholds/"}


@pytest.fixture
def people(alice, bob, carol, dave):
    """One person per role, and one with none."""
    return {MANAGER: alice, SUPERVISOR: bob, WALLBOARD: carol, None: dave}


def below(role):
    return [r for r in (None, WALLBOARD, SUPERVISOR, MANAGER) if r != role and rank(r) < rank(role)]


def rank(role):
    return RANK.get(role, 0)


def test_every_route_declares_who_may_use_it():
    undeclared = [r.path for r in routes() if r.role is None and r.path not in PUBLIC | SIGNED_IN]
    assert undeclared == []


def test_every_page_sends_signed_out_people_to_a_sign_in_page(client):
    for page in pages():
        if page.path in PUBLIC or page.path == "/admin/login/":  # a sign-in page itself
            continue
        r = client.get(page.path, follow=True)
        assert r.redirect_chain, page.path
        assert r.request["PATH_INFO"] in ("/accounts/login/", "/admin/login/"), page.path


def test_every_page_refuses_each_role_below_its_own(client, people):
    checked = 0
    for page in pages():
        for role in below(page.role) if page.role else ():
            client.force_login(people[role])
            assert client.get(page.path).status_code == 403, (page.path, role)
            checked += 1
    assert checked > 40


def test_every_page_lets_its_own_role_in(client, people):
    """Inside the admin, Django's own model permissions refuse some pages (a delete of the
    one Thresholds row, an autocomplete without its parameters): its index and lists count."""
    for page in pages():
        inner_admin = page.path.startswith("/admin/") and page.path not in ADMIN_PAGES
        if page.role and not inner_admin:
            client.force_login(people[page.role])
            assert client.get(page.path).status_code != 403, page.path


def test_the_coaching_actions_refuse_roles_below_manager_and_signed_out_people(client, people):
    alert = make_alert()
    for action in ("acknowledge", "resolve", "reopen"):
        path = f"/coaching/{alert.pk}/{action}/"
        client.logout()
        assert client.post(path, {"note": "n"})["Location"].startswith(LOGIN_PAGES)
        for role in (None, WALLBOARD, SUPERVISOR):
            client.force_login(people[role])
            assert client.post(path, {"note": "n"}).status_code == 403
    alert.refresh_from_db()
    assert alert.status == "open" and not alert.actions.exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("path", "role"), sockets())
async def test_every_socket_refuses_signed_out_people_and_roles_below_its_own(path, role, people):
    assert await closed_with(communicator(path=path)) == 4401
    for person in below(role):
        cookie = await sync_to_async(session_cookie_for)(people[person])
        code = await closed_with(communicator(cookie, path=path))
        assert code == (4401 if person is None else 4403), person
    cookie = await sync_to_async(session_cookie_for)(people[role])
    ws = communicator(cookie, path=path)
    assert (await ws.connect())[0] is True
    await ws.disconnect()


def make_alert():
    return CoachingAlert.objects.create(
        alert_id="al-1", kind="long_hold", severity="critical", raised_at=timezone.now()
    )


def post_forms(html):
    """(action, field names) of every form that posts."""
    forms = re.findall(r"<form\b([^>]*)>(.*?)</form>", html, re.S | re.I)
    found = []
    for attrs, _body in forms:
        if re.search(r'method="post"', attrs, re.I):
            action = re.search(r'action="([^"]*)"', attrs)
            found.append(action[1] if action else None)
    return found


def test_every_form_refuses_a_post_without_its_csrf_token(people):
    """Forms found by reading every page a Manager can open (the admin's too); each refuses
    a POST without the token, and takes one with it past the CSRF check."""
    alert = make_alert()  # its id: a transactional test before may have used 1 already
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(people[MANAGER])
    targets = set()
    for page in pages():
        r = strict.get(page.path)
        if r.status_code == 200 and "html" in r.get("Content-Type", ""):
            targets |= {action or page.path for action in post_forms(r.content.decode())}
    coaching = {f"/coaching/{alert.pk}/acknowledge/", f"/coaching/{alert.pk}/resolve/"}
    assert {"/accounts/logout/", *coaching} <= targets
    assert "/admin/live/thresholds/1/change/" in targets
    for target in sorted(targets):
        assert strict.post(target, {"note": "n"}).status_code == 403, target
        if "/delete/" in target:
            continue  # with its token it would delete the people this test signs in as
        strict.get("/")  # sets the CSRF cookie
        token = strict.cookies["csrftoken"].value
        r = strict.post(target, {"note": "n", "csrfmiddlewaretoken": token})
        assert r.status_code != 403, target
        strict.force_login(people[MANAGER])  # the logout form signed us out


def test_only_the_webhook_receiver_is_exempt_from_csrf():
    exempt = [r.path for r in routes() if getattr(r.view, "csrf_exempt", False)]
    assert exempt == ["/webhooks/service/"]


def test_every_page_sends_the_security_headers(client, people):
    for signed_in in (False, True):
        if signed_in:
            client.force_login(people[MANAGER])
        for page in [*pages(), *[type(pages()[0])("/no-such-page/", None)]]:
            r = client.get(page.path)
            csp = r.get("Content-Security-Policy", "")
            assert "script-src 'self'" in csp and "unsafe-inline" not in csp, page.path
            assert "frame-ancestors 'none'" in csp, page.path
            assert r["X-Frame-Options"] == "DENY", page.path
            assert r["X-Content-Type-Options"] == "nosniff", page.path
            assert r["Referrer-Policy"] == "same-origin", page.path


PRODUCTION_PROBE = """
import json
from django.core.management import call_command
from django.test import Client
call_command("migrate", verbosity=0)
call_command("adduser", "pat", "--role", "supervisor", "--password", "prod-password-1")
c = Client()
plain = c.get("/accounts/login/")
page = c.get("/accounts/login/", secure=True)
c.post("/accounts/login/", {"username": "pat", "password": "prod-password-1",
       "csrfmiddlewaretoken": c.cookies["csrftoken"].value}, secure=True)
print(json.dumps({
    "plain": [plain.status_code, plain.get("Location", "")],
    "hsts": page.get("Strict-Transport-Security", ""),
    "cookies": {k: {"secure": bool(m["secure"]), "httponly": bool(m["httponly"])}
                for k, m in c.cookies.items()},
}))
"""


def test_production_settings_send_hsts_redirect_to_https_and_mark_cookies_secure(tmp_path):
    env = command_env(
        DJANGO_ENV="production",
        SECRET_KEY="a-production-key-for-the-test-" + "x" * 30,
        DATABASE_URL=f"sqlite:///{tmp_path / 'prod.sqlite3'}",
        REDIS_URL="",
    )
    seen = json.loads(last_line(run_manage(env, "shell", "-c", PRODUCTION_PROBE)))
    assert seen["plain"] == [301, "https://testserver/accounts/login/"]
    assert "max-age=31536000" in seen["hsts"] and "includeSubDomains" in seen["hsts"]
    assert seen["cookies"]["sessionid"] == {"secure": True, "httponly": True}
    assert seen["cookies"]["csrftoken"]["secure"] is True


def test_production_settings_refuse_to_start_without_a_secret_key(tmp_path):
    env = command_env(DJANGO_ENV="production")
    env.pop("SECRET_KEY", None)
    r = run_manage(env, "check")
    assert r.returncode != 0 and "SECRET_KEY" in r.stderr


@pytest.mark.django_db(transaction=True)
async def test_a_kiosk_link_opens_its_wallboard_and_nothing_else():
    """The token is the whole credential: it makes no session, so every other page and
    socket treats its holder as signed out, and it revokes nothing."""
    link = await sync_to_async(make_link)()
    kiosk = Client()
    assert (await sync_to_async(kiosk.get)(f"/wallboard/{link.token}/")).status_code == 200
    for page in pages():
        if page.path not in PUBLIC | {"/admin/login/"}:
            r = await sync_to_async(kiosk.get)(page.path, follow=True)
            assert r.request["PATH_INFO"] in ("/accounts/login/", "/admin/login/"), page.path
    r = await sync_to_async(kiosk.post)(f"/wallboards/{link.pk}/revoke/")
    assert r.status_code == 302 and r["Location"].startswith(LOGIN_PAGES)
    cookie = "; ".join(f"{k}={m.value}" for k, m in kiosk.cookies.items()).encode()
    for path, _role in sockets():
        assert await closed_with(communicator(cookie, path=path)) == 4401, path
    await sync_to_async(link.refresh_from_db)()
    assert link.revoked_at is None
