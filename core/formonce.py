"""A create form sent twice makes one thing, not two.

A create form (a table, a tournament) carries a hidden ``once`` key, new at each rendering
(:class:`OnceField`). Before it creates, the view claims the key with the form's data in the
shared cache (:class:`Once`); the same form sent again with the same data within ``WINDOW``
seconds (a reload that posts again, a second tab, a script sending twice) is sent to what
the first sending made, and makes nothing. The same page sent with other settings (back,
change, send) is another form. A sending without a key claims nothing, and a cache that
fails claims nothing either: the form then works as it did before.

The cache is the one every process shares (Redis, or the run command's file cache), so two
sendings that reach two Daphne processes meet in it. A page with such a form is never kept
by the browser (``fresh_page``): going back to it fetches a new form, with a new key, where a
copy from the browser's cache would have sent the old key again (and been sent to the table
it made; site.js gives new keys to a page back from the back-forward cache).
"""
from __future__ import annotations

import hashlib
import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django import forms
from django.core.cache import cache
from django.core.validators import RegexValidator
from django.http import HttpResponse
from django.utils.cache import add_never_cache_headers

log = logging.getLogger(__name__)

FIELD = "once"
WINDOW = 600  # seconds a sent form is remembered
WAIT = 5.0  # seconds a second sending waits for the first to finish
_MAKING = "making"
# what the second sending is told, on the page of what the first made
SENT_TWICE = "This form was sent twice: here is the {what} its first sending made."
_UNSENT = ("csrfmiddlewaretoken", FIELD)


def fresh_key() -> str:
    return secrets.token_urlsafe(16)


class OnceField(forms.CharField):
    """The hidden ``once`` key of a create form: new at each rendering, the same when a form
    with errors comes back."""

    widget = forms.HiddenInput

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            required=False, max_length=43, initial=fresh_key,
            validators=[RegexValidator(r"\A[A-Za-z0-9_-]*\Z",
                                       "The form's key is not one this site wrote.")],
            **kwargs)


def fresh_page(response: HttpResponse) -> HttpResponse:
    """``response``, a page with a create form, marked never to be kept (the docstring)."""
    add_never_cache_headers(response)
    return response


class StillMaking(Exception):
    """The same form, sent a moment ago, is still being made."""

    message = ("This form was sent twice and the first sending is still being made: look "
               "for it in a moment.")


T = TypeVar("T")


@dataclass(frozen=True)
class Made(Generic[T]):
    """What :meth:`Once.make` made (``thing``) and its address; ``thing`` is None for a
    second sending, sent to what the first made (``repeated``)."""

    thing: T | None
    url: str

    @property
    def repeated(self) -> bool:
        return self.thing is None


class Once:
    """One sending of a create form by ``user``: ``make(create, url_of)``, or by hand
    ``earlier()`` before creating, then ``made(url)`` or ``release()``."""

    def __init__(self, user: Any, form: forms.Form) -> None:
        key = form.cleaned_data.get(FIELD) or ""
        if not key or not getattr(user, "is_authenticated", False):
            self.key: str | None = None
            return
        data = sorted((name, form.data.getlist(name) if hasattr(form.data, "getlist")
                       else [form.data[name]])
                      for name in form.data if name not in _UNSENT)
        digest = hashlib.sha256(json.dumps([key, data], default=str).encode()).hexdigest()
        self.key = f"form-once:{user.pk}:{digest[:32]}"

    def make(self, create: Callable[[], T], url_of: Callable[[T], str]) -> Made[T]:
        """``create()`` once for this form: what it made and ``url_of`` it; for a second
        sending, the address the first made, and ``create`` is not called. Whatever
        ``create`` raises (a refusal) releases the form, which may then be sent again, and
        goes on to the caller, as ``StillMaking`` does (``earlier``)."""
        earlier = self.earlier()
        if earlier is not None:
            return Made(None, earlier)
        try:
            thing = create()
        except BaseException:
            self.release()
            raise
        url = url_of(thing)
        self.made(url)
        return Made(thing, url)

    def earlier(self) -> str | None:
        """The address of what the first sending of this form made, if this is a second
        sending (None: this one makes it). Raises ``StillMaking`` when the first has not
        finished within ``WAIT`` seconds."""
        if self.key is None:
            return None
        try:
            deadline = time.monotonic() + WAIT
            while not cache.add(self.key, _MAKING, WINDOW):
                held = cache.get(self.key)
                if held is not None and held != _MAKING:
                    return str(held)
                if time.monotonic() >= deadline:
                    raise StillMaking(StillMaking.message)
                time.sleep(0.1)
        except StillMaking:
            raise
        except Exception:  # a cache that fails claims nothing (the module's docstring)
            log.warning("form once: the cache failed; the form is not claimed", exc_info=True)
            self.key = None
        return None

    def made(self, url: str) -> None:
        if self.key is not None:
            try:
                cache.set(self.key, url, WINDOW)
            except Exception:
                log.warning("form once: the cache failed to keep %s", url, exc_info=True)

    def release(self) -> None:
        """The sending made nothing (it was refused): the same form may be sent again."""
        if self.key is not None:
            try:
                cache.delete(self.key)
            except Exception:
                log.warning("form once: the cache failed to release a form", exc_info=True)
