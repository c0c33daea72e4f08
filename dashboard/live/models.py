"""Limits past which a supervisor's eye should be drawn: amber at `warn`, red at `alarm`."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models


class Thresholds(models.Model):
    """One row, edited in the admin; made from settings.LIVE_THRESHOLDS when first read."""

    ringing_warn_s = models.PositiveIntegerField("ringing: amber after (s)")
    ringing_alarm_s = models.PositiveIntegerField("ringing: red after (s)")
    wrap_up_warn_s = models.PositiveIntegerField("wrap-up: amber after (s)")
    wrap_up_alarm_s = models.PositiveIntegerField("wrap-up: red after (s)")
    pause_warn_s = models.PositiveIntegerField("paused: amber after (s)")
    pause_alarm_s = models.PositiveIntegerField("paused: red after (s)")
    wait_warn_s = models.PositiveIntegerField("longest wait: amber at (s)")
    wait_alarm_s = models.PositiveIntegerField("longest wait: red at (s)")
    service_level_warn_pct = models.PositiveIntegerField("service level: amber below (%)")
    service_level_alarm_pct = models.PositiveIntegerField("service level: red below (%)")

    class Meta:
        verbose_name = verbose_name_plural = "thresholds"

    def __str__(self):
        return "Thresholds"

    def clean(self):
        for name in ("ringing", "wrap_up", "pause", "wait"):
            if getattr(self, f"{name}_warn_s") > getattr(self, f"{name}_alarm_s"):
                raise ValidationError(f"{name.replace('_', '-')}: amber must come before red.")
        if self.service_level_warn_pct < self.service_level_alarm_pct:
            raise ValidationError("Service level: the amber limit must be above the red one.")
        if self.service_level_warn_pct > 100:
            raise ValidationError("Service level limits are percentages (0 to 100).")

    def save(self, *args, **kwargs):
        self.pk = 1  # a single row
        super().save(*args, **kwargs)

    @classmethod
    def current(cls):
        return cls.objects.get_or_create(pk=1, defaults=settings.LIVE_THRESHOLDS)[0]

    def for_browser(self):
        """The limits keyed by what the page marks with `data-limit`."""
        return {
            "ringing": {"warn": self.ringing_warn_s, "alarm": self.ringing_alarm_s},
            "wrap_up": {"warn": self.wrap_up_warn_s, "alarm": self.wrap_up_alarm_s},
            "paused": {"warn": self.pause_warn_s, "alarm": self.pause_alarm_s},
            "wait": {"warn": self.wait_warn_s, "alarm": self.wait_alarm_s},
            "service_level": {
                "warn": self.service_level_warn_pct,
                "alarm": self.service_level_alarm_pct,
                "low_is_bad": True,
            },
        }
