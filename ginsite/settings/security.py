"""Security headers, HTTPS and the content security policy."""
import os

from .env import env_bool

# --- Security -----------------------------------------------------------------------------
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
# HTTPS=1 when the site is served over TLS (behind a proxy that sets X-Forwarded-Proto):
# redirect to https, secure cookies, HSTS. Off by default so that the run command works on
# plain http://127.0.0.1:8000 with DEBUG off.
HTTPS = env_bool("HTTPS", False)
if HTTPS:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    # A load balancer's health check speaks plain http to each process: a 301 would fail it.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

# Everything is served from our own origin: no CDN anywhere.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "connect-src": ["'self'", "ws:", "wss:"],
        "font-src": ["'self'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
    }
}
