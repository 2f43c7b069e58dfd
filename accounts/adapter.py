"""allauth adapter: site-specific behaviour of sign-up and log-in."""
from __future__ import annotations

from allauth.account.adapter import DefaultAccountAdapter
from allauth.core.exceptions import ImmediateHttpResponse
from allauth.core.ratelimit import respond_429
from django.core.exceptions import ValidationError
from django.db.models import Q

from core.text import skeleton

from .middleware import device_time_zone
from .names import kept_for_the_site
from .validators import validate_display_name

SITE_NAME = "Gin Rummy"
EMAIL_MAX_LENGTH = 254


class AccountAdapter(DefaultAccountAdapter):
    error_messages = {
        **DefaultAccountAdapter.error_messages,
        "too_many_login_attempts": (
            "Too many failed log-in attempts. Wait a few minutes and try again, "
            "or reset your password."
        ),
        # (a wrong current password read "Please type your current password.", as if the
        # field had been left empty: an audit)
        "enter_current_password": "That is not your current password.",
    }

    def pre_authenticate(self, request, **credentials):
        """Answer a brute-force attempt with HTTP 429 instead of just another form error.

        allauth counts failed log-ins per IP address and per account (``login_failed`` in
        ``ACCOUNT_RATE_LIMITS``); once the limit is reached, every further attempt gets
        the "Too many requests" page until the window has passed.
        """
        try:
            super().pre_authenticate(request, **credentials)
        except ValidationError as exc:
            if getattr(exc, "code", None) == "too_many_login_attempts":
                raise ImmediateHttpResponse(respond_429(request)) from exc
            raise

    def clean_email(self, email: str) -> str:
        """At most 254 characters (the column's size and RFC 5321's limit). allauth fitted a
        longer address to the column by cutting it, so an account was made for an address
        without its "@", whose confirmation could never arrive."""
        email = super().clean_email(email)
        if len(email) > EMAIL_MAX_LENGTH:
            raise ValidationError(
                f"An email address has at most {EMAIL_MAX_LENGTH} characters.",
                code="email_too_long")
        return email

    def clean_username(self, username: str, shallow: bool = False) -> str:
        """A username may not pass for the site, its computer players or another player: a
        username is the name shown when no display name is set, so "admin", "Computer" and
        "bоb2" (a Cyrillic "о", beside bob2) were names that could fool people; the display
        name refuses the same (``services.display_name_taken``, ``names``). Names are compared
        as they look (``core.text.skeleton``, stored as ``User.username_look`` and
        ``display_look``; and as their shapes, a capital "I" read as a small "l":
        ``username_shape``, ``display_shape``)."""
        # characters that show nothing, named as such: the username validator's "Enter a
        # valid username…" did not say which of "bob2" and its letters was wrong
        validate_display_name(username)
        if "@" in username:
            # one logs in with a username or an address: "alice@example.com" as a username read
            # as the address at the log-in, and attached another person's address to the account
            raise ValidationError("A username cannot hold “@”: you log in with your username "
                                  "or your e-mail address, and this would pass for an address.",
                                  code="username_at")
        username = super().clean_username(username, shallow=shallow)
        look = skeleton(username)
        kept = kept_for_the_site(username)
        if kept:
            raise ValidationError(kept, code="username_reserved")
        if not shallow:
            from .models import User

            # whichever came first: "bob" beside "bоb" (a Cyrillic "о") too, and a name another
            # player shows as their display name ("zed"), which theirs could not have been had
            # this username come first
            shape = skeleton(username, capital_i=True)
            if User.objects.filter(Q(username_look=look) | Q(username_shape=shape)).exists():
                raise ValidationError("That looks like another player's username: choose a "
                                      "name of your own.", code="username_lookalike")
            if User.objects.filter(Q(display_look=look) | Q(display_shape=shape)).exists():
                raise ValidationError("Another player goes by that name: choose a name of "
                                      "your own.", code="username_display_name")
        return username

    def save_user(self, request, user, form, commit=True):
        """A new account starts in the device's time zone (``site.js``'s cookie), so its
        times are local from the first page; the settings change it."""
        zone = device_time_zone(request)
        if zone:
            user.time_zone = zone
        return super().save_user(request, user, form, commit)

    def login(self, request, user) -> None:
        """Remember whether this is the account's first log-in (Django stamps
        ``last_login`` during it), for the greeting below."""
        request._gin_first_login = user.last_login is None
        super().login(request, user)

    def add_message(self, request, level, message_template=None, message_context=None,
                    extra_tags="", message=None):
        """A brand-new player is welcomed, not welcomed back."""
        if message_template == "account/messages/logged_in.txt":
            message_context = {
                **(message_context or {}),
                "first_login": getattr(request, "_gin_first_login", False),
            }
        return super().add_message(request, level, message_template, message_context,
                                   extra_tags, message)

    def format_email_subject(self, subject) -> str:
        return f"[{SITE_NAME}] {subject}"

    def send_mail(self, template_prefix, email, context):
        """Emails name the site and link to the address the user actually uses."""
        context = dict(context)
        context.setdefault("site_name", SITE_NAME)
        request = context.get("request") or self.request
        if request is not None and "site_url" not in context:
            context["site_url"] = request.build_absolute_uri("/")
        return super().send_mail(template_prefix, email, context)
