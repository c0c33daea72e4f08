from django.urls import path

from . import views

urlpatterns = [
    path("wallboards/", views.links, name="wallboard-links"),
    path("wallboards/<int:pk>/revoke/", views.revoke, name="wallboard-revoke"),
    path("wallboard/<str:token>/", views.board, name="wallboard"),
]
