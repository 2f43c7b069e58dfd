"""Importing the site's JSON of a forfeited game says who forfeited and why ("ann resigned"),
as the file says; the engine's forms do not say, and a forfeit that the replay contradicts
or that names no player is refused."""
from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from games import records
from games.models import Game, ImportedRecord
from tests.support.records import finished_game, short_game_state
from tests.support.tables import play_then_resign, start_table

pytestmark = pytest.mark.django_db


def _upload(client, content: str, name="game.json"):
    return client.post("/games/import/", {
        "record": SimpleUploadedFile(name, content.encode(), content_type="application/json")})


def _resigned_game(rooms, two_players) -> Game:
    ann, bob = two_players
    table = start_table(rooms["classic"], [ann, bob])
    play_then_resign(table.pk, {0: ann, 1: bob}, 6, resigner=bob)
    return Game.objects.get(table=table)


def test_the_site_json_of_a_forfeited_game_says_who_forfeited(rooms, two_players, make_user):
    game = _resigned_game(rooms, two_players)
    site = json.dumps(game.record)
    record, names, forfeit, _ = records.record_import_with_forfeit(site)
    assert forfeit == {"seat": 1, "reason": "resignation"}
    assert records.forfeit_text(forfeit, names) == f"{names[1]} resigned"
    # the engine's own forms do not say
    assert records.record_import_with_forfeit(records.record_text(game))[2] is None
    # signed out: shown with it; signed in: kept with it, and its page says it
    page = " ".join(_upload(Client(), site).content.decode().split())
    assert f"the record stops where {names[1]} resigned (as the file says)" in page
    client = Client()
    client.force_login(make_user("cleo"))
    answer = _upload(client, site)
    kept = ImportedRecord.objects.get()
    assert answer.status_code == 302 and kept.forfeit == {"seat": 1, "reason": "resignation"}
    page = " ".join(client.get(kept.get_absolute_url()).content.decode().split())
    assert f"the record stops where {names[1]} resigned (as the file says)" in page


@pytest.mark.parametrize("forfeit", [
    {"seat": 5, "reason": "resignation"}, {"seat": "1", "reason": "resignation"},
    {"seat": True, "reason": "resignation"}, {"seat": 1, "reason": "boredom"}, "bob", [1],
])
def test_a_forfeit_that_names_no_player_is_refused(rooms, two_players, forfeit):
    game = _resigned_game(rooms, two_players)
    data = {**game.record, "forfeit": forfeit}
    answer = _upload(Client(), json.dumps(data))
    assert answer.status_code == 400
    assert "forfeit is not valid" in answer.content.decode()


def test_a_forfeit_of_a_game_played_to_its_end_is_refused(make_user):
    game = finished_game([make_user("ann"), make_user("bob")], seed=8,
                         state=short_game_state(seed=8))
    assert game.record["result"] is not None
    data = {**game.record, "forfeit": {"seat": 0, "reason": "timeout"}}
    answer = _upload(Client(), json.dumps(data))
    assert answer.status_code == 400
    assert "but its moves play the game to its end" in answer.content.decode()
    assert not ImportedRecord.objects.exists()


def test_a_no_show_of_one_move_reads_right_signed_out(rooms, two_players):
    """A tournament's no-show exported and uploaded without an account: "1 move" (it read
    "1 moves" signed out, "1 move" signed in) and who never came."""
    ann, bob = two_players
    table = start_table(rooms["classic"], [ann, bob])
    play_then_resign(table.pk, {0: ann, 1: bob}, 1, resigner=bob)
    site = Game.objects.get(table=table).record
    site = {**site, "ending": "no_show", "forfeit": {**site["forfeit"], "reason": "no_show"}}
    names = [p["name"] for p in site["players"]]
    page = " ".join(_upload(Client(), json.dumps(site)).content.decode().split())
    assert f"</bdi>, 1 move, the record stops where {names[1]} did not come (as" in page
