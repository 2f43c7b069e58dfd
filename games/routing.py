from django.urls import path

from .consumers import TableConsumer

websocket_urlpatterns = [
    path("ws/table/<id:table_id>/", TableConsumer.as_asgi()),
]
