from django.urls import path

from . import views

urlpatterns = [
    path("agents/<str:agent_id>/", views.agent, name="agent"),
    path("agents/<str:agent_id>/notes/", views.add_note, name="agent-notes"),
    path("agents/<str:agent_id>/notes/<int:pk>/", views.edit_note, name="agent-note"),
    path("calls/<str:call_id>/", views.call, name="call"),
    path("calls/<str:call_id>/recording/", views.call_recording, name="call-recording"),
    path("search/", views.search, name="search"),
]
