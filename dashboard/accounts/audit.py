"""Failed sign-ins and lockouts, one WARNING line each: who was tried, from where. Never
the password (Django's signal carries it masked; it is not logged at all here)."""

import logging

from axes.signals import user_locked_out
from django.contrib.auth.signals import user_login_failed

from .address import client_address

log = logging.getLogger("dashboard.accounts.audit")


def sign_in_failed(sender, credentials, request=None, **kwargs):
    log.warning(
        "sign-in failed for %r from %s", credentials.get("username"), client_address(request)
    )


def locked_out(sender, request, username, ip_address, **kwargs):
    log.warning("sign-in paused for %r and %s after too many failures", username, ip_address)


def connect_signals():
    user_login_failed.connect(sign_in_failed, dispatch_uid="audit-sign-in-failed")
    user_locked_out.connect(locked_out, dispatch_uid="audit-locked-out")
