from django.urls import path

from . import views
from .views import challenges


def answers(prefix: str, module, name: str, key: str) -> list:
    """The three answers to an offer (a contact request, an invitation, a challenge): its
    ``<prefix><id>/accept/``, ``decline/`` and ``cancel/``, served by ``<name>_accept`` and so
    on in ``module`` and named like them."""
    return [path(f"{prefix}<id:{key}>/{verb}/", getattr(module, f"{name}_{verb}"),
                 name=f"{name}_{verb}") for verb in ("accept", "decline", "cancel")]


app_name = "social"
urlpatterns = [
    # Private messages
    path("messages/", views.inbox, name="inbox"),
    path("messages/unread/", views.unread, name="unread"),
    path("messages/with/<str:username>/", views.conversation, name="conversation"),
    path("messages/c/<id:conversation_id>/history/", views.history, name="history"),
    path("messages/c/<id:conversation_id>/read/", views.conversation_read, name="read"),
    path("messages/c/<id:conversation_id>/delete/", views.conversation_delete, name="delete"),
    # Contacts, requests, blocking, preference
    path("contacts/", views.contacts, name="contacts"),
    path("contacts/list.json", views.contacts_json, name="contacts_json"),
    path("contacts/privacy/", views.privacy, name="privacy"),
    path("contacts/add/<str:username>/", views.request_send, name="request_send"),
    *answers("contacts/requests/", views, "request", "request_id"),
    path("contacts/remove/<str:username>/", views.contact_remove, name="contact_remove"),
    path("contacts/block/", views.block_by_name, name="block_by_name"),
    path("contacts/block/<str:username>/", views.block, name="block"),
    path("contacts/unblock/<str:username>/", views.unblock, name="unblock"),
    # Invitations to a table
    path("invitations/", views.invitations, name="invitations"),
    path("invitations/send/", views.invitation_send, name="invitation_send"),
    path("invitations/new-table/", views.invitation_new_table, name="invitation_new_table"),
    *answers("invitations/", views, "invitation", "invitation_id"),
    # Challenges to a game with a bot account: the page and forms, and the bot API
    path("challenges/", challenges.challenges, name="challenges"),
    path("challenges/send/<str:username>/", challenges.challenge_send, name="challenge_send"),
    *answers("challenges/", challenges, "challenge", "challenge_id"),
    path("api/bot/challenges/", challenges.api_challenges, name="api_challenges"),
    *answers("api/bot/challenges/", challenges, "api_challenge", "challenge_id"),
]
