"""Accounts (django-allauth) and the email that signs people up."""
import os

from ginsite.localfiles import var_dir

from .env import env_bool

VAR_DIR = var_dir()

# --- Auth and accounts (django-allauth) -------------------------------------------------
AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
SITE_ID = 1
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"
ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_CONFIRM_EMAIL_ON_GET = False
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_CHANGE_EMAIL = True
ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = False
ACCOUNT_USERNAME_MIN_LENGTH = 3
# Answers a login brute force with HTTP 429 and names the site in emails.
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
# allauth's forms with the site's sentence-case labels (accounts/auth_forms.py)
ACCOUNT_FORMS = {
    "login": "accounts.auth_forms.SiteLoginForm",
    "change_password": "accounts.auth_forms.SiteChangePasswordForm",
    "reset_password_from_key": "accounts.auth_forms.SiteResetPasswordKeyForm",
}
ACCOUNT_RATE_LIMITS = {
    "login_failed": "10/m/ip,5/5m/key",
    "signup": "20/m/ip",
    "reset_password": "20/m/ip,5/m/key",
    "change_password": "5/m/user",
    "confirm_email": "1/3m/key",
}

# --- Email --------------------------------------------------------------------------------
# Printed on the console with its links framed (accounts/mail.py) unless a backend is given.
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "accounts.mail.ConsoleEmailBackend")
EMAIL_FILE_PATH = os.environ.get("EMAIL_FILE_PATH", str(VAR_DIR / "emails"))
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Gin Rummy <noreply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
