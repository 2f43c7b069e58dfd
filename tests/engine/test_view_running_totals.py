"""The score sheet of a view carries each hand's running totals, so no client sums them."""

import pytest

from games.engine import spectator_view, view_for
from games.engine.selfplay import play_game


@pytest.mark.parametrize("mode,players", [("classic", 2), ("hollywood", 2), ("rummy", 3)])
def test_running_totals_add_up_to_the_columns(mode, players):
    s = play_game(mode, seed=7, num_players=players, check=False)
    sheet = view_for(s, 0)["score_sheet"]
    assert sheet == spectator_view(s)["score_sheet"]
    hands, columns = sheet["hands"], sheet["columns"]
    assert hands, "a finished game has hands"
    totals = [[0] * players for _ in columns]
    for row in hands:
        if row["winner"] is not None:
            for c in row["columns"]:
                totals[c][row["winner"]] += row["points"]
        assert row["running"] == totals
    # after the last hand the running totals are the columns' points
    assert hands[-1]["running"] == [col["points"] for col in columns]
