from django.urls import path

from .consumers import CoachingConsumer, QaConsumer

websocket_urlpatterns = [
    path("ws/coaching/", CoachingConsumer.as_asgi()),
    path("ws/qa/", QaConsumer.as_asgi()),
]
