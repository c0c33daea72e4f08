from django.urls import path

from .consumers import QueueConsumer, QueuesConsumer, VoicemailConsumer

websocket_urlpatterns = [
    path("ws/queues/", QueuesConsumer.as_asgi()),
    path("ws/queues/<str:queue_id>/", QueueConsumer.as_asgi()),
    path("ws/voicemail/", VoicemailConsumer.as_asgi()),
]
