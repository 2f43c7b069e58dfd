from django.urls import path

from . import views

app_name = "accounts"
urlpatterns = [
    path("u/<str:username>/", views.profile, name="profile"),
    path("settings/profile/", views.profile_edit, name="edit"),
    path("settings/alerts/", views.alerts_edit, name="alerts"),
]
