from django.urls import path

from .consumers import AlertConsumer

websocket_urlpatterns = [path("ws/alerts/<int:pk>/", AlertConsumer.as_asgi())]
