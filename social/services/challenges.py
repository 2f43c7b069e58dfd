"""Challenges to one game with a bot account (docs/bot-api.md, "Challenges"): send, accept
(a table starts with both seated), decline, cancel; expiry after ``SOCIAL_CHALLENGE_TTL``.

A person or a bot challenges a bot; a bot challenges a person only if that person lets bots
challenge them. Blocking applies both ways (a block reads as a refusal, never as a block).
Every change is told to both sides' notification sockets after the commit (``challenge``
frames; ``game_start`` when the table is dealt), which is how a bot learns of them.
"""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from .. import conf, frames, policy, tables
from ..models import Challenge, ChallengeStatus
from .errors import NotFound, SocialError, policy_check
from .publish import notify_after_commit
from .rows import answered, pending_row

if TYPE_CHECKING:
    from accounts.models import User

CHALLENGE_TURN_SECONDS = (15, 30, 60)


def _expiry_cutoff() -> datetime:
    ttl: int = conf.get("CHALLENGE_TTL")
    return timezone.now() - timedelta(seconds=ttl)


def challenges_expire(*, user_ids: list[int] | None = None) -> int:
    """Mark pending challenges older than the TTL expired (of ``user_ids``, either side, or
    all); tells both sides. Returns how many."""
    stale = Challenge.objects.filter(status=ChallengeStatus.PENDING,
                                     created_at__lt=_expiry_cutoff())
    if user_ids is not None:
        stale = stale.filter(Q(from_user_id__in=user_ids) | Q(to_user_id__in=user_ids))
    count = 0
    with transaction.atomic():
        for challenge in stale.select_for_update().select_related("from_user", "to_user"):
            _close(challenge, ChallengeStatus.EXPIRED)
            count += 1
    return count


def challenge_send(*, sender: User, recipient: User, mode: str, target: int | None = None,
                   seconds_per_turn: int = 30, rated: bool = False) -> Challenge:
    """Challenge ``recipient`` to a two-player game of ``mode``. Refused (``SocialError``)
    by the policy (``policy.can_challenge``: one side a bot, blocks, the person's
    preference, the rate limit), by the table's rules for the settings (``invalid_settings``),
    or past the limits on open challenges (``too_many_challenges``)."""
    if seconds_per_turn not in CHALLENGE_TURN_SECONDS:
        raise SocialError("Choose 15, 30 or 60 seconds per turn.", "invalid_settings")
    try:
        tables.challenge_check(mode=mode, target=target, rated=rated,
                               seconds_per_turn=seconds_per_turn)
    except tables.TableUnavailable as exc:
        raise SocialError(str(exc), "invalid_settings") from None
    policy_check(policy.can_challenge(sender, recipient))
    challenges_expire(user_ids=[sender.pk, recipient.pk])
    with transaction.atomic():
        # The sender's row lock serialises two sends, so the count cannot be overrun.
        list(get_user_model().objects.select_for_update().filter(pk=sender.pk).values("pk"))
        pending = Challenge.objects.filter(status=ChallengeStatus.PENDING)
        limit: int = conf.get("CHALLENGES_OPEN_MAX")
        if pending.filter(from_user=sender).count() >= limit:
            raise SocialError(
                f"You already have {limit} open challenges: wait for an answer or cancel one.",
                "too_many_challenges",
            )
        incoming: int = conf.get("CHALLENGES_INCOMING_MAX")
        if pending.filter(to_user=recipient).count() >= incoming:
            raise SocialError(
                f"{recipient.public_name} has {incoming} challenges waiting: try again later.",
                "too_many_challenges",
            )
        policy_check(policy.can_challenge(sender, recipient, hit=True))
        challenge = Challenge.objects.create(
            from_user=sender, to_user=recipient, mode=mode, target=target,
            seconds_per_turn=seconds_per_turn, rated=rated,
        )
        notify_after_commit([recipient.pk], frames.challenge_event("received", challenge))
        notify_after_commit([sender.pk], frames.challenge_event("sent", challenge))
    return challenge


def _pending(challenge_id: int, **owner: User) -> Challenge:
    challenge: Challenge = pending_row(Challenge, challenge_id, "challenge", **owner)
    return challenge


def _close(challenge: Challenge, status: str) -> None:
    answered(challenge, status, "table_id")
    notify_after_commit([challenge.from_user_id, challenge.to_user_id],
                        frames.challenge_event(status, challenge))


def challenge_accept(*, user: User, challenge_id: int) -> Challenge:
    """Accept a challenge made to ``user``: the table starts at once with the challenger in
    seat 0 and ``user`` in seat 1 (``challenge.table_id``). A challenge that can no longer be
    honoured (a block since, expired, the person no longer lets bots challenge them, the
    games app refuses the table) is closed and the reason raised."""
    error: SocialError | None = None
    with transaction.atomic():
        challenge = _pending(challenge_id, to_user=user)
        sender = challenge.from_user
        age = timezone.now() - challenge.created_at
        if policy.is_blocked_either_way(sender.pk, user.pk) or not sender.is_active:
            _close(challenge, ChallengeStatus.CANCELLED)
            error = NotFound("This challenge does not exist.")
        elif age.total_seconds() > conf.get("CHALLENGE_TTL"):
            _close(challenge, ChallengeStatus.EXPIRED)
            error = SocialError("This challenge has expired.", "expired")
        elif sender.is_bot and not user.is_bot and not user.bots_may_challenge:
            _close(challenge, ChallengeStatus.CANCELLED)
            error = SocialError("You do not let bots challenge you.", "not_allowed")
        elif busy := tables.busy_reason(user):  # (it stays: to accept after the match)
            error = SocialError(busy, "busy")
        else:
            try:
                table_id = tables.table_start_pair(
                    players=[sender, user], mode=challenge.mode, target=challenge.target,
                    rated=challenge.rated, seconds_per_turn=challenge.seconds_per_turn,
                )
            except tables.TableUnavailable as exc:
                _close(challenge, ChallengeStatus.CANCELLED)
                error = SocialError(str(exc), "table_unavailable")
            else:
                challenge.table_id = table_id
                _close(challenge, ChallengeStatus.ACCEPTED)
                notify_after_commit([sender.pk, user.pk], frames.game_start(challenge))
    if error is not None:
        raise error
    return challenge


def challenge_decline(*, user: User, challenge_id: int) -> Challenge:
    with transaction.atomic():
        challenge = _pending(challenge_id, to_user=user)
        _close(challenge, ChallengeStatus.DECLINED)
    return challenge


def challenge_cancel(*, user: User, challenge_id: int) -> Challenge:
    with transaction.atomic():
        challenge = _pending(challenge_id, from_user=user)
        _close(challenge, ChallengeStatus.CANCELLED)
    return challenge
