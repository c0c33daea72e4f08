from django.urls import path

from . import views

urlpatterns = [
    path("campaigns/", views.campaigns, name="campaigns"),
    path("campaigns/<str:campaign_id>/", views.campaign, name="campaign"),
]
