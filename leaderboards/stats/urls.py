from django.urls import path

from . import views

app_name = "stats"
urlpatterns = [
    path("stats/", views.mine, name="mine"),
]
