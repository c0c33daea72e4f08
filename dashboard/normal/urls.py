from django.urls import path

from . import views

urlpatterns = [path("normal/", views.today, name="normal")]
