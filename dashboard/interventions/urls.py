from django.urls import path

from . import views

urlpatterns = [
    path("calls/<str:call_id>/monitor/", views.monitor, name="call-monitor"),
    path("calls/<str:call_id>/monitor/end/", views.hang_up, name="call-monitor-end"),
    path("agents/<str:agent_id>/state/", views.agent_state, name="agent-state"),
]
