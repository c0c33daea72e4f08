from django.urls import path

from . import views

urlpatterns = [
    path("campaigns/", views.campaigns, name="campaigns"),
    path("campaigns/<str:campaign_id>/", views.campaign, name="campaign"),
    # Outbound operations: the Managers' actions, POST only
    path(
        "campaigns/<str:campaign_id>/start",
        views.campaign_action,
        {"action": "start"},
        name="campaign-start",
    ),
    path(
        "campaigns/<str:campaign_id>/stop",
        views.campaign_action,
        {"action": "stop"},
        name="campaign-stop",
    ),
    path(
        "campaigns/<str:campaign_id>/bookings/<path:booking_id>/handled",
        views.booking_handled,
        name="booking-handled",
    ),
]
