"""Kiosk links: made straight in the database, or through the Manager's page as a person
would make them on a running server."""

import re
from datetime import UTC, datetime, timedelta

from django.utils import timezone

from dashboard.wallboard.models import PANELS, KioskLink


def make_link(name="Sales floor TV", expires_in=timedelta(days=7), revoked=False, **fields):
    return KioskLink.objects.create(
        name=name,
        panels=fields.pop("panels", [key for key, _ in PANELS]),
        expires_at=timezone.now() + expires_in,
        revoked_at=timezone.now() if revoked else None,
        **fields,
    )


def tampered(token: str) -> str:
    """The same token with one character of its signature changed."""
    last = token[-1]
    return token[:-1] + ("A" if last != "A" else "B")


def create_link(client, name, panels, rotation_s=15, expires=timedelta(days=7)):
    """Through the Manager's page (`client` signed in as a Manager); the kiosk address."""
    client.get("/wallboards/")
    r = client.post(
        "/wallboards/",
        data={
            "csrfmiddlewaretoken": client.cookies["csrftoken"],
            "name": name,
            "panels": panels,
            "rotation_s": str(rotation_s),
            "expires_at": (datetime.now(UTC) + expires).strftime("%Y-%m-%dT%H:%M"),
        },
    )
    return re.search(r'id="new-link-url"[^>]*value="([^"]+)"', r.text).group(1)


def token_of(url):
    return url.rstrip("/").rsplit("/", 1)[1]


def revoke_newest(client):
    """Revoke the newest link, through the Manager's page (the list shows no tokens)."""
    newest = re.findall(r'<tr id="link-(\d+)">', client.get("/wallboards/").text)[0]
    r = client.post(
        f"/wallboards/{newest}/revoke/", data={"csrfmiddlewaretoken": client.cookies["csrftoken"]}
    )
    assert r.status_code == 302
