from django.urls import path

from . import views

app_name = "social"
urlpatterns = [
    path("messages/", views.inbox, name="inbox"),
]
