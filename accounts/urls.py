from django.urls import path

from . import views

app_name = "accounts"
urlpatterns = [
    path("u/<str:username>/", views.profile, name="profile"),
    path("settings/profile/", views.profile_edit, name="edit"),
    path("settings/alerts/", views.alerts_edit, name="alerts"),
    path("settings/api/", views.api_settings, name="api"),
    path("settings/api/tokens/<id:token_id>/revoke/", views.api_token_revoke,
         name="api_token_revoke"),
    path("settings/api/bots-may-challenge/", views.bots_may_challenge_edit,
         name="bots_may_challenge"),
    path("settings/api/bot/", views.bot_convert, name="bot_convert"),
    path("settings/close/", views.account_close, name="close"),
]
