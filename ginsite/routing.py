"""All WebSocket routes of the site, collected from the apps."""
from games.routing import websocket_urlpatterns as games_ws
from social.routing import websocket_urlpatterns as social_ws

websocket_urlpatterns = [*games_ws, *social_ws]
