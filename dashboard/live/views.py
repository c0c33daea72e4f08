from django.shortcuts import render

from dashboard.accounts.roles import WALLBOARD, role_required


@role_required(WALLBOARD)
def home(request):
    return render(request, "live/home.html")
