from django.urls import path

from core.urlids import register_id_converter

from .consumers import TableConsumer

register_id_converter()

websocket_urlpatterns = [
    path("ws/table/<id:table_id>/", TableConsumer.as_asgi()),
]
