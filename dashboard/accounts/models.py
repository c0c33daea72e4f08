"""Each person's own settings: a colour theme that overrides the system's, their teams ("my
floor": what the live view, its figures and the alerts show by default), and saved views
(named sets of the live view's filters, opened from the header)."""

from django.conf import settings
from django.db import models

SYSTEM, LIGHT, DARK = "system", "light", "dark"
THEMES = [(SYSTEM, "As the system"), (LIGHT, "Light"), (DARK, "Dark")]


class Preferences(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preferences"
    )
    theme = models.CharField(max_length=6, choices=THEMES, default=SYSTEM)
    # The teams this person runs, sorted (names as the service spells them); [] is the
    # whole floor.
    teams = models.JSONField(default=list, blank=True)
    # Where the service rings this person to listen to a call: E.164 or a sip: URI.
    monitor_dial = models.CharField(max_length=200, blank=True)

    class Meta:
        verbose_name_plural = "preferences"

    def __str__(self):
        return f"{self.user}: {self.theme}"


def theme_of(user) -> str:
    """The person's theme ("system" when they never chose one, or are signed out)."""
    if not (user and user.is_authenticated):
        return SYSTEM
    found = Preferences.objects.filter(user=user).values_list("theme", flat=True).first()
    return found or SYSTEM


def teams_of(user) -> tuple[str, ...]:
    """The person's teams, sorted: () when they chose none (the whole floor)."""
    if not (user and user.is_authenticated):
        return ()
    found = Preferences.objects.filter(user=user).values_list("teams", flat=True).first()
    return tuple(sorted(found or ()))


def monitor_dial_of(user) -> str:
    """The number or SIP address the service rings for this person's monitoring ("": none)."""
    if not (user and user.is_authenticated):
        return ""
    found = Preferences.objects.filter(user=user).values_list("monitor_dial", flat=True).first()
    return found or ""


class SavedView(models.Model):
    """A named set of the live view's filters, kept as the query string the view's URL
    carries (so opening it is following a link, and a link can be shared)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="saved_views"
    )
    name = models.CharField(max_length=60)
    query = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["user", "name"], name="one_view_per_name_per_user")
        ]

    def __str__(self):
        return f"{self.user}: {self.name}"

    @property
    def url(self) -> str:
        return f"/?{self.query}" if self.query else "/"
