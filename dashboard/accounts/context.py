"""Template context every page needs: organisation name, role and navigation, and the
person's theme and saved views."""

from django.conf import settings
from django.urls import reverse

from .models import SYSTEM, THEMES, SavedView, theme_of
from .roles import MANAGER, RANK, SUPERVISOR, WALLBOARD, user_role

NAVIGATION = [
    # (label, URL name, minimum role): the pages are the other rooms', found by name
    ("Live", "home", WALLBOARD),
    ("Replay", "replay", SUPERVISOR),
    ("Campaigns", "campaigns", SUPERVISOR),
    ("QA", "qa", SUPERVISOR),
    ("Alerts", "alerts", SUPERVISOR),
    ("Coaching", "coaching", MANAGER),
    ("Wallboards", "wallboard-links", MANAGER),
    ("Queues", "queues", SUPERVISOR),
    ("Voicemail", "voicemail", SUPERVISOR),
    ("Normal", "normal", SUPERVISOR),
]


def navigation(request):
    role = user_role(getattr(request, "user", None))
    links = []
    if role:
        for label, name, minimum in NAVIGATION:
            if RANK[role] >= RANK[minimum]:
                path = reverse(name)
                links.append({"label": label, "path": path, "active": request.path == path})
    user = getattr(request, "user", None)
    return {
        "org_name": settings.ORGANIZATION_NAME,
        "user_role": role,
        "nav_links": links,
        "theme": theme_of(user) if role else SYSTEM,
        "themes": THEMES,
        "saved_views": SavedView.objects.filter(user=user) if role else [],
    }
