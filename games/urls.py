from django.urls import path

from . import views

app_name = "games"
urlpatterns = [
    path("play/", views.lobby, name="lobby"),
]
