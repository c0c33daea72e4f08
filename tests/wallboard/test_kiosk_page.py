"""The kiosk page: a valid token shows the board with no sign-in; anything else says why."""

from datetime import timedelta

import pytest
from django.core import signing

from dashboard.testing.links import make_link, tampered
from dashboard.wallboard.models import SALT, KioskLink

pytestmark = pytest.mark.django_db


def test_it_shows_the_board_without_a_sign_in(client, link):
    r = client.get(f"/wallboard/{link.token}/")
    assert r.status_code == 200
    page = r.content.decode()
    # (`?v=` follows when the floor's view is in the cache: another test's feed may have run)
    assert f'ws-connect="/ws/wallboard/{link.token}/' in page
    assert 'id="live-config"' in page and '"sort": "name"' in page
    assert r["Cache-Control"].startswith("max-age=0") and r["Referrer-Policy"] == "no-referrer"
    for key in ("kpis", "agents", "queues", "campaigns", "qa", "alerts"):
        assert f'data-panel="{key}"' in page
    assert "<style" not in page and " style=" not in page  # the strict CSP holds


def test_it_refuses_a_tampered_or_made_up_token(client, link):
    forged_nonce = signing.Signer(salt="another salt").sign_object([link.pk, link.nonce])
    guessed = signing.Signer(salt=SALT).sign_object([link.pk, "guessed-nonce"])
    for token in (tampered(link.token), forged_nonce, guessed, "x", "a:b:c", "💥", "[1]"):
        r = client.get(f"/wallboard/{token}/")
        assert r.status_code == 404, token
        assert b"This is not a valid wallboard link" in r.content
        assert b"Traceback" not in r.content and b"ws-connect" not in r.content


def test_it_refuses_the_token_of_a_deleted_link(client, link):
    token = link.token
    KioskLink.objects.all().delete()
    assert client.get(f"/wallboard/{token}/").status_code == 404


def test_it_says_when_a_link_has_expired(client):
    link = make_link(expires_in=timedelta(seconds=-5))
    r = client.get(f"/wallboard/{link.token}/")
    assert r.status_code == 410
    assert b"This wallboard link has expired" in r.content and b"ws-connect" not in r.content


def test_it_says_when_a_link_was_revoked(client):
    link = make_link(revoked=True)
    r = client.get(f"/wallboard/{link.token}/")
    assert r.status_code == 410
    assert b"This wallboard link was revoked" in r.content and b"ws-connect" not in r.content
