from django.urls import path

from . import views

urlpatterns = [
    path("alerts/", views.alerts, name="alerts"),
    path("alerts/<int:pk>/", views.alert, name="alert"),
    path("alerts/<int:pk>/acknowledge/", views.acknowledge, name="alert-acknowledge"),
    path("alerts/rules/", views.rules, name="alert-rules"),
    path("alerts/rules/<int:pk>/", views.rule, name="alert-rule"),
    path("alerts/rules/<int:pk>/delete/", views.delete_rule, name="alert-rule-delete"),
    path("alerts/deliveries/", views.deliveries, name="alert-deliveries"),
]
