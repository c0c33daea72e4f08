from django.urls import path

from .consumers import LiveConsumer, StatusConsumer

websocket_urlpatterns = [
    path("ws/live/", LiveConsumer.as_asgi()),
    path("ws/status/", StatusConsumer.as_asgi()),
]
