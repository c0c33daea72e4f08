"""A rule saved or deleted anywhere (its page, the admin) tells the engine to reload."""

from django.core.cache import cache
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from .models import Rule

RULES_STAMP = "alerts:rules-stamp"
ACK_STAMP = "alerts:ack-stamp"  # an alert acknowledged: the engine republishes the tray


def bump(key: str):
    try:
        cache.incr(key)
    except ValueError:
        cache.set(key, 1, timeout=None)


@receiver([post_save, post_delete], sender=Rule)
def rules_changed(**kwargs):
    bump(RULES_STAMP)
