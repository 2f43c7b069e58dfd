"""The confirmation page's words for a link used twice: allauth answers a link whose address
is confirmed already as one that is not valid ("expired or is not valid"), although the
person's address is confirmed and the link did its work."""
from __future__ import annotations

from allauth.account import app_settings
from allauth.account.models import EmailAddress
from django import template
from django.core import signing

register = template.Library()


@register.simple_tag
def confirmed_by_link(key: object) -> str:
    """The email address the confirmation link ``key`` was sent to, if that address is
    confirmed already (the link used before); "" for any other key."""
    if not isinstance(key, str) or not key or len(key) > 200:
        return ""
    try:
        pk = signing.loads(key, max_age=60 * 60 * 24 * app_settings.EMAIL_CONFIRMATION_EXPIRE_DAYS,
                           salt=app_settings.SALT)
    except signing.BadSignature:  # (SignatureExpired is one)
        return ""
    if not isinstance(pk, int | str):
        return ""
    try:
        address = EmailAddress.objects.filter(pk=pk, verified=True).first()
    except (ValueError, TypeError):
        return ""
    return address.email if address is not None else ""
