"""Kiosk links: a read-only wallboard for an office TV, behind an unguessable signed URL."""

import secrets

from django.conf import settings
from django.core import signing
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone

PANELS = [  # key, title; the key names the panel's section on the wallboard page
    ("kpis", "Key figures"),
    ("agents", "Agents by state"),
    ("queues", "Queues"),
    ("campaigns", "Campaign progress"),
    ("qa", "QA leaderboard"),
    ("alerts", "Open coaching alerts"),
    ("changed", "What changed"),
]
PANEL_TITLES = dict(PANELS)
SALT = "dashboard.wallboard.link"


def new_nonce() -> str:
    return secrets.token_urlsafe(16)


class KioskLink(models.Model):
    ACTIVE, EXPIRED, REVOKED = "active", "expired", "revoked"

    name = models.CharField(max_length=80)
    panels = models.JSONField(default=list)
    rotation_s = models.PositiveIntegerField(
        "rotation interval (s)",
        default=15,
        validators=[MinValueValidator(5), MaxValueValidator(600)],
    )
    expires_at = models.DateTimeField()
    nonce = models.CharField(max_length=32, default=new_nonce, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return self.name

    @property
    def token(self) -> str:
        """Signed over the id and this row's random nonce: unguessable and tamper-evident."""
        return signing.Signer(salt=SALT).sign_object([self.pk, self.nonce])

    @property
    def group(self) -> str:
        """The channel-layer group of this link's open sockets."""
        return f"wallboard-link-{self.pk}"

    @property
    def state(self) -> str:
        if self.revoked_at:
            return self.REVOKED
        return self.EXPIRED if self.expires_at <= timezone.now() else self.ACTIVE

    def panel_titles(self) -> list[tuple[str, str]]:
        return [(key, PANEL_TITLES[key]) for key in self.panels if key in PANEL_TITLES]

    @classmethod
    def from_token(cls, token: str) -> "KioskLink | None":
        """The link a token names, whatever its state; None when forged, altered or unknown."""
        try:
            pk, nonce = signing.Signer(salt=SALT).unsign_object(token)
        except (signing.BadSignature, ValueError, TypeError):
            return None
        if not isinstance(pk, int) or not isinstance(nonce, str):
            return None
        link = cls.objects.filter(pk=pk).first()
        if link is None or not secrets.compare_digest(link.nonce, nonce):
            return None
        return link
