"""A rule saved or deleted anywhere (its page, the admin) tells the engine to reload."""

from django.core.cache import cache
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from .models import Rule

RULES_STAMP = "alerts:rules-stamp"


@receiver([post_save, post_delete], sender=Rule)
def rules_changed(**kwargs):
    try:
        cache.incr(RULES_STAMP)
    except ValueError:
        cache.set(RULES_STAMP, 1, timeout=None)
