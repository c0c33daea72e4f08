from django.urls import path

from . import receiver, views

urlpatterns = [
    path("webhooks/service/", receiver.receive, name="webhook-receiver"),
    path("coaching/", views.coaching, name="coaching"),
    path("coaching/<int:pk>/<str:action>/", views.coaching_action, name="coaching-action"),
    path("qa/", views.qa, name="qa"),
]
