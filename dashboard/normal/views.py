"""Today against its normal (Supervisor). What the page shows is in pages.py."""

from django.shortcuts import render

from dashboard.accounts.roles import SUPERVISOR, role_required

from .pages import normal_context


@role_required(SUPERVISOR)
def today(request):
    return render(request, "normal/today.html", normal_context())
