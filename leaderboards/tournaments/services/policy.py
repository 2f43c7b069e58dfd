"""Who may create and enter, and the link a private tournament is seen through."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.urls import reverse
from django.utils import timezone

from core.moments import moment
from core.secrets_compare import same_secret

from .. import conf, ratings
from ..models import Status, Tournament

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser

    from accounts.models import User


def rated_games(user: User | AnonymousUser | None) -> int:
    """The user's rated games towards ``min_rated_games`` (counted up to it): those the
    ratings rule rates, so a game that ended before both players moved does not count."""
    if user is None or not user.is_authenticated:
        return 0
    return ratings.rated_games(user, up_to=conf.min_rated_games())


def can_create(user: User | AnonymousUser | None) -> bool:
    if user is None or not user.is_authenticated:
        return False
    if getattr(user, "is_bot", False):
        return False
    return user.is_staff or rated_games(user) >= conf.min_rated_games()


def ended_refusal(t: Tournament) -> str | None:
    """Why nothing more can be done in ``t``, if it has ended: finished or cancelled."""
    if t.status == Status.CANCELLED:
        return ("The tournament was cancelled." if t.started_at is not None
                else "The tournament was cancelled before its start.")
    if t.status == Status.FINISHED:
        return "The tournament is over."
    return None


def entry_window_refusal(t: Tournament) -> str | None:
    """Why nobody may enter ``t`` now, whoever they are (None: its entries are open)."""
    now = timezone.now()
    ended = ended_refusal(t)
    if ended:
        return f"Entries are closed: {ended[0].lower()}{ended[1:]}"
    if t.status != Status.SCHEDULED or now >= t.starts_at:
        return "Entries are closed: the tournament has started."
    if not t.entries_open:
        return f"Entries open {moment(t.entry_opens_at)}."
    return None


def entry_refusal(
    t: Tournament, user: User | AnonymousUser | None, invite: str = "",
    known: dict[Any, Any] | None = None,
) -> str | None:
    """Why ``user`` may not enter now (None: they may). ``known``: the user's playban and
    ratings read for an earlier tournament, kept between calls for one user (a list of
    tournaments asks once, not twice a row)."""
    known = {} if known is None else known
    now = timezone.now()
    if user is None or not user.is_authenticated:
        return "Log in to enter."
    if getattr(user, "is_bot", False):
        # A bot plays only through the bot API's challenges (docs/bot-api.md), and its rating
        # is in the bots' pool: a tournament of people would mix the two.
        return "Bot accounts play challenges through the bot API, not tournaments."
    window = entry_window_refusal(t)
    if window:
        return window
    if t.private and user.pk != t.created_by_id and not (
        same_secret(invite, t.invite_token)
    ):
        return "This tournament is private: you need its invite link."
    if "ban" not in known:
        known["ban"] = ratings.playban_until(user)
    ban = known["ban"]
    if ban is not None and ban > now:
        return f"You may not play rated games until {moment(ban)}."
    if t.rating_min is not None or t.rating_max is not None:
        if ("rating", t.mode) not in known:
            known["rating", t.mode] = ratings.seed_ratings([user.pk], t.mode).get(user.pk)
        rating, provisional = known["rating", t.mode] or (None, False)
        # written as everywhere else: "1330?" while provisional
        shown = f"{rating}?" if provisional else f"{rating}"
        if rating is not None and t.rating_min is not None and rating < t.rating_min:
            return f"Your rating ({shown}) is below this tournament's floor ({t.rating_min})."
        if rating is not None and t.rating_max is not None and rating > t.rating_max:
            return f"Your rating ({shown}) is above this tournament's ceiling ({t.rating_max})."
    return None


def invite_url(t: Tournament) -> str:
    return reverse("tournaments:detail", kwargs={"tournament_id": t.pk}) + (
        f"?invite={t.invite_token}" if t.private else "")
