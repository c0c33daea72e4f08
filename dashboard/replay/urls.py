from django.urls import path

from . import views

urlpatterns = [
    path("replay/", views.page, name="replay"),
    path("replay/moment/", views.moment, name="replay-moment"),
]
