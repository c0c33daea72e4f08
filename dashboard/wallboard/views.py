"""The kiosk page (no sign-in: the signed token is the credential) and the Manager's page
that creates, lists and revokes kiosk links."""

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from dashboard.accounts.roles import MANAGER, role_required
from dashboard.live.audiences import wallboard
from dashboard.live.browser import browser_config
from dashboard.live.publish import rendered_floor

from .build import build_id
from .forms import LinkForm, initial
from .models import PANELS, KioskLink


@never_cache
def board(request, token):
    """The wallboard, with its panels as they are now (the link's own panels only); the
    websocket then keeps them up to date."""
    link = KioskLink.from_token(token)
    if link is None or link.state != KioskLink.ACTIVE:
        reason = link.state if link else "invalid"
        status = 404 if link is None else 410
        return render(
            request, "wallboard/closed.html", {"reason": reason, "link": link}, status=status
        )
    version, floor = rendered_floor(wallboard(link.panels))
    response = render(
        request,
        "wallboard/board.html",
        {
            "floor": floor,
            "version": version,
            "link": link,
            "token": token,
            "panels": PANELS,
            "config": browser_config(
                sort="name",
                panels=link.panels,
                rotation_s=link.rotation_s,
                far_behind_s=settings.WALLBOARD_FAR_BEHIND_S,
                build=build_id(),
            ),
        },
    )
    response["Referrer-Policy"] = "no-referrer"  # the token stays out of Referer headers
    return response


@role_required(MANAGER)
def links(request):
    form = LinkForm(request.POST or None, initial=initial())
    created = None
    if request.method == "POST" and form.is_valid():
        link = form.save(commit=False)
        link.created_by = request.user
        link.save()
        created = {
            "link": link,
            "url": request.build_absolute_uri(reverse("wallboard", args=[link.token])),
        }
        form = LinkForm(initial=initial())
    return render(
        request,
        "wallboard/links.html",
        {
            "form": form,
            "created": created,
            "links": KioskLink.objects.select_related("created_by")[:200],
        },
    )


@require_POST
@role_required(MANAGER)
def revoke(request, pk):
    link = get_object_or_404(KioskLink, pk=pk)
    if link.revoked_at is None:
        link.revoked_at = timezone.now()
        link.save(update_fields=["revoked_at"])
        # Its open screens close at once, in whichever worker holds their sockets.
        async_to_sync(get_channel_layer().group_send)(link.group, {"type": "wallboard.revoked"})
        messages.success(request, f"“{link.name}” is revoked; its screens say so now.")
    return redirect("wallboard-links")
