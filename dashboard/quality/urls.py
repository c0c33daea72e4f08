from django.urls import path

from . import receiver

urlpatterns = [path("webhooks/service/", receiver.receive, name="webhook-receiver")]
