from django.urls import path

from . import views
from .views import challenges

app_name = "social"
urlpatterns = [
    # Private messages
    path("messages/", views.inbox, name="inbox"),
    path("messages/unread/", views.unread, name="unread"),
    path("messages/with/<str:username>/", views.conversation, name="conversation"),
    path("messages/c/<int:conversation_id>/history/", views.history, name="history"),
    path("messages/c/<int:conversation_id>/read/", views.conversation_read, name="read"),
    path("messages/c/<int:conversation_id>/delete/", views.conversation_delete, name="delete"),
    # Contacts, requests, blocking, preference
    path("contacts/", views.contacts, name="contacts"),
    path("contacts/list.json", views.contacts_json, name="contacts_json"),
    path("contacts/privacy/", views.privacy, name="privacy"),
    path("contacts/add/<str:username>/", views.request_send, name="request_send"),
    path("contacts/requests/<int:request_id>/accept/", views.request_accept,
         name="request_accept"),
    path("contacts/requests/<int:request_id>/decline/", views.request_decline,
         name="request_decline"),
    path("contacts/requests/<int:request_id>/cancel/", views.request_cancel,
         name="request_cancel"),
    path("contacts/remove/<str:username>/", views.contact_remove, name="contact_remove"),
    path("contacts/block/", views.block_by_name, name="block_by_name"),
    path("contacts/block/<str:username>/", views.block, name="block"),
    path("contacts/unblock/<str:username>/", views.unblock, name="unblock"),
    # Invitations to a table
    path("invitations/", views.invitations, name="invitations"),
    path("invitations/send/", views.invitation_send, name="invitation_send"),
    path("invitations/<int:invitation_id>/accept/", views.invitation_accept,
         name="invitation_accept"),
    path("invitations/<int:invitation_id>/decline/", views.invitation_decline,
         name="invitation_decline"),
    path("invitations/<int:invitation_id>/cancel/", views.invitation_cancel,
         name="invitation_cancel"),
    # Challenges to a game with a bot account: the page and forms, and the bot API
    path("challenges/", challenges.challenges, name="challenges"),
    path("challenges/send/<str:username>/", challenges.challenge_send, name="challenge_send"),
    path("challenges/<int:challenge_id>/accept/", challenges.challenge_accept,
         name="challenge_accept"),
    path("challenges/<int:challenge_id>/decline/", challenges.challenge_decline,
         name="challenge_decline"),
    path("challenges/<int:challenge_id>/cancel/", challenges.challenge_cancel,
         name="challenge_cancel"),
    path("api/bot/challenges/", challenges.api_challenges, name="api_challenges"),
    path("api/bot/challenges/<int:challenge_id>/accept/", challenges.api_challenge_accept,
         name="api_challenge_accept"),
    path("api/bot/challenges/<int:challenge_id>/decline/", challenges.api_challenge_decline,
         name="api_challenge_decline"),
    path("api/bot/challenges/<int:challenge_id>/cancel/", challenges.api_challenge_cancel,
         name="api_challenge_cancel"),
]
