from celery import shared_task

from .presence import (
    presence_clear_playing,
    presence_playing,
    presence_show_other_tables,
    presence_sweep,
)


@shared_task(name="social.presence_sweep", ignore_result=True)
def presence_sweep_task():
    """Announce users whose notification sockets all lapsed without a disconnect."""
    presence_sweep()


@shared_task(name="social.challenges_expire", ignore_result=True)
def challenges_expire_task() -> int:
    """Close the challenges left unanswered past ``SOCIAL_CHALLENGE_TTL`` and tell both sides
    (``challenge`` frames, event ``expired``). Safe to run twice: only pending ones change."""
    from .services import challenges_expire

    return challenges_expire()


@shared_task(name="social.game_finished", ignore_result=True)
def game_finished(game_id: int) -> list[int]:
    """The players of finished game ``game_id`` no longer play at its table: their contacts
    stop seeing "playing". Idempotent and safe late: a player's mark is cleared only while it
    still names this game's table, which never hosts another game (a rematch gets a new table).
    Returns the ids of the players looked at."""
    from games.models import Game, GamePlayer

    table_id = Game.objects.filter(pk=game_id).values_list("table_id", flat=True).first()
    if table_id is None:  # the game or its table is gone: no mark can name it any more
        return []
    user_ids = list(
        GamePlayer.objects.filter(game_id=game_id, user__isnull=False)
        .values_list("user_id", flat=True)
    )
    for user_id in user_ids:
        presence_clear_playing(user_id, table_id)
    presence_show_other_tables([u for u in user_ids if presence_playing(u) is None], table_id)
    return user_ids

