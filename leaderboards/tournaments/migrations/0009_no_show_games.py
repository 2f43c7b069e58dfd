"""A match's player who never came to its table lost the game "by abandonment" until games had
an ending of their own for it (``games.Ending.NO_SHOW``): such games read "p9 left before
anyone scored". Every game of a match recorded as a no-show is relabelled: its ending, the
absent seat's ``left``, and the stored record's ending, forfeit and leavers. The statistics
then count them again (``stats.0004``)."""
from django.db import migrations


def relabel(apps, schema_editor):
    Match = apps.get_model("tournaments", "Match")
    Game = apps.get_model("games", "Game")
    GamePlayer = apps.get_model("games", "GamePlayer")
    tables = Match.objects.filter(ending="no_show", table__isnull=False).values_list(
        "table_id", flat=True)
    for game in Game.objects.filter(table_id__in=list(tables), ending="abandonment"):
        game.ending = "no_show"
        record = dict(game.record or {})
        if record.get("ending") == "abandonment":
            record["ending"] = "no_show"
        if isinstance(record.get("forfeit"), dict):
            record["forfeit"] = {**record["forfeit"], "reason": "no_show"}
        if isinstance(record.get("leavers"), list):
            record["leavers"] = [
                {**x, "reason": "no_show"}
                if isinstance(x, dict) and x.get("seat") == game.loser_seat else x
                for x in record["leavers"]
            ]
        game.record = record
        game.save(update_fields=["ending", "record"])
        GamePlayer.objects.filter(game=game, seat=game.loser_seat,
                                  left="abandonment").update(left="no_show")


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0008_tournament_ended_early"),
        ("games", "0020_ending_no_show"),
    ]
    operations = [migrations.RunPython(relabel, migrations.RunPython.noop)]
