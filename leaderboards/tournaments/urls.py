from django.urls import path

from . import views

app_name = "tournaments"
urlpatterns = [
    path("tournaments/new/", views.tournament_new, name="new"),
    path("tournaments/<id:tournament_id>/", views.tournament_detail, name="detail"),
    path("tournaments/<id:tournament_id>/live/", views.tournament_live, name="live"),
    path("tournaments/<id:tournament_id>/enter/", views.tournament_enter, name="enter"),
    path("tournaments/<id:tournament_id>/withdraw/", views.tournament_withdraw,
         name="withdraw"),
    path("tournaments/<id:tournament_id>/cancel/", views.tournament_cancel, name="cancel"),
]
