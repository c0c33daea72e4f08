from django.urls import path

from . import views

urlpatterns = [
    path("normal/", views.today, name="normal"),
    path("normal/day/<str:day>/", views.day, name="normal-day"),
]
