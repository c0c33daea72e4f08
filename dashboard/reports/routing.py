from django.urls import path

from .consumers import CampaignConsumer, CampaignsConsumer

websocket_urlpatterns = [
    path("ws/campaigns/", CampaignsConsumer.as_asgi()),
    path("ws/campaigns/<str:campaign_id>/", CampaignConsumer.as_asgi()),
]
