"""Issue 19, item 14: a computer seat has one name in both record formats ("Computer (Easy)"
in the JSON's players, its engine record and the text form's Players header), and records
written with the old "bot-easy" names still import, showing the same name."""
from __future__ import annotations

import json
import re

import pytest

from games import records, services
from games.models import Game

pytestmark = pytest.mark.django_db


def _finished_against_two_easy_computers(rooms, user):
    table = services.play_computer(user=user, mode="rummy", level=1, seat_count=3)
    services.table_resign(table_id=table.pk, user=user)
    return Game.objects.get(table=table)


def _stored_with_engine_players(game, players: list[str]) -> dict:
    """Store ``game``'s record with these engine player names (as the site stored computers
    before: "bot-easy"); return the record stored."""
    old = dict(game.record)
    old["engine"] = {**old["engine"], "players": players}
    Game.objects.filter(pk=game.pk).update(record=old)
    game.refresh_from_db()
    return old


def _players_header(text: str) -> list[str]:
    return json.loads(re.search(r"^Players: (.*)$", text, re.M).group(1))


def test_computers_have_one_name_in_both_formats(rooms, make_user):
    ann = make_user("ann")
    game = _finished_against_two_easy_computers(rooms, ann)
    data = records.record_json(game)
    site_names = [p["name"] for p in data["players"]]
    assert site_names == [ann.public_name, "Computer (Easy)", "Computer 2 (Easy)"]
    assert data["engine"]["players"] == ["ann", "Computer (Easy)", "Computer 2 (Easy)"]
    text = records.record_text(game)
    assert _players_header(text) == ["ann", "Computer (Easy)", "Computer 2 (Easy)"]
    assert "bot-" not in text and "bot-" not in json.dumps(data)
    # both files import with the same names
    _, from_json = records.record_import(json.dumps(data))
    _, from_text = records.record_import(text)
    assert from_json[1:] == from_text[1:] == ["Computer (Easy)", "Computer 2 (Easy)"]


def test_old_records_with_bot_names_still_import_and_export_alike(rooms, make_user):
    ann = make_user("ann")
    game = _finished_against_two_easy_computers(rooms, ann)
    # as the site stored it before: "bot-easy" in the engine record
    old = _stored_with_engine_players(game, ["ann", "bot-easy", "bot-easy"])
    text = records.record_text(game)
    assert _players_header(text) == ["ann", "Computer (Easy)", "Computer 2 (Easy)"]
    assert records.record_json(game)["engine"]["players"][1] == "Computer (Easy)"
    # an old text file, as downloaded then
    old_text = text.replace('"Computer (Easy)", "Computer 2 (Easy)"', '"bot-easy", "bot-easy"')
    assert '"bot-easy"' in old_text
    record, names = records.record_import(old_text)
    assert names == ["ann", "Computer (Easy)", "Computer 2 (Easy)"]
    assert record.players == names
    # an old engine JSON record
    _, names = records.record_import(json.dumps(old["engine"]))
    assert names == ["ann", "Computer (Easy)", "Computer 2 (Easy)"]


def test_a_player_called_like_a_computer_keeps_their_name():
    assert records.computer_names(["bot-easyrider", "Bot-easy", "bot-hard"]) == [
        "bot-easyrider", "Bot-easy", "Computer (Hard)"]


def test_a_person_named_like_an_old_computer_keeps_the_name_in_a_stored_game(rooms, make_user):
    ann = make_user("ann")
    game = _finished_against_two_easy_computers(rooms, ann)
    _stored_with_engine_players(game, ["bot-hard", "bot-easy", "bot-easy"])
    assert _players_header(records.record_text(game)) == [
        "bot-hard", "Computer (Easy)", "Computer 2 (Easy)"]
