"""ASGI entry point: Daphne serves HTTP and WebSockets from here.

HTTP goes to Django (static files through WhiteNoise's middleware); WebSockets go through
the allowed-hosts origin check, then the session/auth middleware, then the URL router.
"""
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginsite.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from ginsite.routing import websocket_urlpatterns  # noqa: E402
from ginsite.runtime import settle_gc  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)

settle_gc()
