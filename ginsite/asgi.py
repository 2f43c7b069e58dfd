"""ASGI entry point: Daphne serves HTTP and WebSockets from here.

HTTP goes to Django (static files through WhiteNoise's middleware), except ``/healthz``,
answered before Django so that it never waits on the thread or connection pools an outage
fills (``ginsite.health``), and the embedded default's relay endpoint (``ginsite.relay``);
WebSockets go through the allowed-hosts origin check (the Origin's host and port must be the
site's: ``ginsite.origin``) and the allowed-hosts check, then the session middleware and
``core.sockets.SessionUserMiddleware`` (the user is read from the session by the consumer, in
its first database call: ``core.sockets.resolve_user``), then the URL router; a handshake
with ``Authorization: Bearer`` (a bot's token, ``ginsite.tokenauth``) skips the Origin and
session steps and is the token's user; ``ginsite.wsguard`` answers handshakes that fail
before a consumer takes them.
"""
import os

from django.core.asgi import get_asgi_application

from ginsite.localfiles import prepare

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginsite.settings")
prepare()
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from channels.sessions import CookieMiddleware, SessionMiddleware  # noqa: E402

from core.sockets import SessionUserMiddleware  # noqa: E402
from ginsite.health import HealthEndpoint  # noqa: E402
from ginsite.longlines import answer_long_lines  # noqa: E402
from ginsite.origin import SameOriginValidator  # noqa: E402
from ginsite.relay import RelayEndpoint  # noqa: E402
from ginsite.routing import websocket_urlpatterns  # noqa: E402
from ginsite.runtime import mark_web_process, name_statuses, settle_gc  # noqa: E402
from ginsite.tokenauth import TokenHandshake  # noqa: E402
from ginsite.wsguard import HandshakeGuard  # noqa: E402

mark_web_process()
answer_long_lines()
name_statuses()

application = ProtocolTypeRouter(
    {
        "http": HealthEndpoint(RelayEndpoint(django_asgi_app)),
        "websocket": HandshakeGuard(TokenHandshake(
            URLRouter(websocket_urlpatterns),
            SameOriginValidator(AllowedHostsOriginValidator(
                CookieMiddleware(SessionMiddleware(SessionUserMiddleware(
                    URLRouter(websocket_urlpatterns))))
            )),
        )),
    }
)

settle_gc()
