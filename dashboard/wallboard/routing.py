from django.urls import path

from .consumers import WallboardConsumer

websocket_urlpatterns = [path("ws/wallboard/<str:token>/", WallboardConsumer.as_asgi())]
