from django.urls import path

from . import views

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
]
