from django.urls import path

from .ratings import views
from .tournaments import views as tournament_views

app_name = "leaderboards"
urlpatterns = [
    path("leaderboards/", views.index, name="index"),
    path("tournaments/", tournament_views.tournament_list, name="tournaments"),
]
