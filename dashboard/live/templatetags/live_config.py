from django import template
from django.conf import settings
from django.utils.html import json_script

from dashboard.live.browser import browser_config

register = template.Library()


@register.simple_tag
def live_config():
    """#live-config for a page that follows a socket: what static/js/live/ is told."""
    return json_script(browser_config(window_from=settings.LIVE_WINDOW_FROM), "live-config")
