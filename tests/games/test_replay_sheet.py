"""The replay's score sheet (``games.replay.replay_data``): each game's own running totals,
and results written as on the record's score sheet."""
from __future__ import annotations

import pytest

from games import engine as E
from games.engine.selfplay import play_game
from games.replay import replay_data


@pytest.mark.parametrize("mode, players", [("hollywood", 2), ("classic", 2), ("rummy", 3)])
def test_the_sheet_runs_per_game_and_ends_at_the_games_scores(mode, players):
    """Hollywood's replay sheet added its three games together (64, 136…), figures shown
    nowhere else: each game now has its own totals, and they end at the game's."""
    state = play_game(mode, 2, players, check=False)
    data = replay_data(E.GameRecord.from_state(state), [f"p{i}" for i in range(players)])
    last = data["sheet"][-1]["running"]
    assert last == [list(c["points"]) for c in state.columns]
    assert len(last) == (3 if mode == "hollywood" else 1)
    for row in data["sheet"]:
        assert row["outcome"][:1].isupper(), row  # "Knock: ann +7", as the record's sheet


@pytest.mark.parametrize("mode, players", [("hollywood", 2), ("classic", 2), ("rummy", 3)])
def test_each_moves_seats_show_hollywoods_points_game_by_game(mode, players):
    """The replay's seat read Hollywood's three games added together (359 where the table
    and the sheet say 118 / 103 / 138): each frame has each game's points."""
    state = play_game(mode, 2, players, check=False)
    data = replay_data(E.GameRecord.from_state(state), [f"p{i}" for i in range(players)])
    last = data["frames"][-1]
    if mode == "hollywood":
        assert last["game_scores"] == [[c["points"][s] for c in state.columns]
                                       for s in range(players)]
        assert [sum(g) for g in last["game_scores"]] == last["scores"]
    else:
        assert last["game_scores"] is None


def test_a_hand_counts_only_in_the_games_it_scored_in():
    state = play_game("hollywood", 0, 2, check=False)
    data = replay_data(E.GameRecord.from_state(state), ["a", "b"])
    before = [[0, 0] for _ in range(3)]
    for row, hand in zip(data["sheet"], state.hand_results, strict=True):
        for c in range(3):
            gained = [x - y for x, y in zip(row["running"][c], before[c], strict=True)]
            expected = hand.points if hand.winner is not None and c in hand.columns else 0
            assert sum(gained) == expected
        before = row["running"]


@pytest.mark.django_db
def test_the_game_pages_sheet_leaves_a_win_that_counts_in_no_game_out(make_user):
    """A Hollywood hand won after every game its winner would score in was over counts in
    none (``columns == []``): the game page's sheet had put it in the first game (155 to 12
    under totals of 155 to 0; an outside audit), while the table and the replay left it out.
    Seed 4's ninth hand is such a win (22 points for seat 1)."""
    from games.selectors import score_sheet
    from tests.support.records import finished_game

    state = play_game("hollywood", 4, 2, check=False)
    idle = [i for i, h in enumerate(state.hand_results) if h.winner is not None and not h.columns]
    assert idle == [8]
    game = finished_game([make_user("ann"), make_user("bob")], mode="hollywood", seed=4,
                         state=state)
    sheet = score_sheet(game)
    replay = replay_data(E.GameRecord.from_state(state), ["ann", "bob"])
    assert [r["columns"] for r in sheet["rows"]] == [r["running"] for r in replay["sheet"]]
    assert sheet["rows"][8]["columns"] == sheet["rows"][7]["columns"]
    assert sheet["rows"][-1]["columns"] == [list(c["points"]) for c in state.columns]
    # and it says why the totals did not move ("4 Knock: ann +18" had stood unexplained)
    assert [i for i, r in enumerate(sheet["rows"]) if r["in_no_game"]] == [8]


@pytest.mark.django_db
def test_a_hand_doubled_by_a_spade_upcard_says_so(make_user, client):
    """Oklahoma: "Knock: Computer (Easy) +24" of a 12-point knock, with nothing to say the
    spade upcard doubled it, on the game page's sheet and the replay's (an outside audit)."""
    from games.selectors import score_sheet
    from tests.support.records import finished_game

    seed, state = next((s, st) for s in range(40)
                       for st in [play_game("oklahoma", s, 2, check=False)]
                       if any(h.winner is not None and h.multiplier > 1
                              for h in st.hand_results))
    doubled = [h.winner is not None and h.multiplier > 1 for h in state.hand_results]
    ann = make_user("ann")
    game = finished_game([ann, make_user("bob")], mode="oklahoma", seed=seed, state=state)
    assert [r["doubled"] for r in score_sheet(game)["rows"]] == doubled
    replay = replay_data(E.GameRecord.from_state(state), ["ann", "bob"])
    assert [r["doubled"] for r in replay["sheet"]] == doubled
    client.force_login(ann)
    page = client.get(game.get_absolute_url()).content.decode()
    assert page.count("(doubled: the upcard was a spade)") == sum(doubled)
