from django.urls import path

from . import views

urlpatterns = [
    path("queues/", views.queues, name="queues"),
    path("queues/<str:queue_id>/", views.queue, name="queue"),
    path("voicemail/", views.voicemail, name="voicemail"),
    path("voicemail/<str:message_id>/handled/", views.handled, name="voicemail-handled"),
]
