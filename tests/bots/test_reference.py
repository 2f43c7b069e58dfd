"""The reference panel and Medium do what their definitions say."""

from __future__ import annotations

import pytest

from games.bots import get_bot
from games.engine import Deal, apply, legal_actions, new_game, view_for
from tests.support.bots import gin_decision

# Non-dealer (seat 0) holds 5H 6H; the upcard decides.
HAND0 = ["5H", "6H", "KC", "QD", "9S", "2C", "4D", "JS", "8C", "3S"]
HAND1 = ["AC", "AD", "TS", "TD", "7C", "7D", "QS", "QH", "KH", "2S"]


def _offer_state(upcard: str):
    return new_game("classic", seed=5, dealer=1, deals=[Deal.make([HAND0, HAND1], upcard)])


@pytest.mark.parametrize("name", ["baseline", "ginwaiter", "medium", "hard"])
def test_takes_an_upcard_that_makes_a_meld(name):
    s = _offer_state("7H")
    bot = get_bot(name, seed=3)
    assert str(bot.choose(view_for(s, 0), legal_actions(s))) == "take_upcard"


@pytest.mark.parametrize("name", ["baseline", "ginwaiter", "medium"])
def test_passes_an_upcard_that_melds_nothing(name):
    s = _offer_state("KS")  # would only pair the KC, not make a meld
    bot = get_bot(name, seed=3)
    assert str(bot.choose(view_for(s, 0), legal_actions(s))) == "pass"


@pytest.mark.parametrize("name", ["baseline", "medium"])
def test_draws_the_top_discard_only_if_it_melds(name):
    # Both pass the upcard; seat 0 draws from stock and throws the KS; seat 1 then decides.
    s = new_game(
        "classic", seed=5, dealer=1, deals=[Deal.make([HAND0, HAND1], "9D", stock=["KS"])]
    )
    s = apply(s, "pass", seat=0).state
    s = apply(s, "pass", seat=1).state
    s = apply(s, "draw:stock", seat=0).state
    s = apply(s, "discard:KS", seat=0).state
    bot = get_bot(name, seed=1)
    assert str(bot.choose(view_for(s, 1), legal_actions(s))) == "draw:stock"
    s2 = new_game(
        "classic", seed=5, dealer=1, deals=[Deal.make([HAND0, HAND1], "9D", stock=["AS"])]
    )
    s2 = apply(s2, "pass", seat=0).state
    s2 = apply(s2, "pass", seat=1).state
    s2 = apply(s2, "draw:stock", seat=0).state
    s2 = apply(s2, "discard:AS", seat=0).state  # AS makes AC-AD-AS for seat 1
    assert str(bot.choose(view_for(s2, 1), legal_actions(s2))) == "draw:discard"


# Three melds and the KD: knocking with 10 is legal after throwing the drawn QS.
KNOCK_HAND = ["AC", "2C", "3C", "4D", "5D", "6D", "7S", "7H", "7C", "KD", "QS"]


@pytest.mark.parametrize("draws", [1, 2, 5, 9])
def test_baseline_knocks_as_soon_as_it_may(draws):
    view, legal = gin_decision(KNOCK_HAND, pile=["9H"], my_draws=draws)
    action = get_bot("baseline", seed=draws).choose(view, legal)
    assert action.kind == "knock" and str(action.card) in ("KD", "QS")


@pytest.mark.parametrize("draws", [1, 2, 3])
def test_ginwaiter_knocks_in_its_first_three_turns(draws):
    view, legal = gin_decision(KNOCK_HAND, pile=["9H"], my_draws=draws)
    assert get_bot("ginwaiter", seed=1).choose(view, legal).kind == "knock"


@pytest.mark.parametrize("draws", [4, 5, 8])
def test_ginwaiter_after_turn_three_knocks_only_with_gin(draws):
    view, legal = gin_decision(KNOCK_HAND, pile=["9H"], my_draws=draws)
    action = get_bot("ginwaiter", seed=1).choose(view, legal)
    assert action.kind == "discard" and str(action.card) in ("KD", "QS")
    gin_hand = ["AC", "2C", "3C", "4C", "4D", "5D", "6D", "7S", "7H", "7C", "QS"]
    view, legal = gin_decision(gin_hand, pile=["9H"], my_draws=draws)
    action = get_bot("ginwaiter", seed=1).choose(view, legal)
    assert str(action) == "gin:QS"


def test_baseline_discards_among_least_deadwood_cards_only():
    hand = ["AC", "2C", "3C", "9D", "9H", "KS", "QS", "JD", "5H", "TD", "4S"]
    view, legal = gin_decision(hand, pile=["8H"], my_draws=6, knock_limit=10)
    seen = set()
    for seed in range(40):
        a = get_bot("baseline", seed=seed).choose(view, legal)
        seen.add(str(a))
    # KS, QS, JD and TD all leave the same minimum deadwood; nothing else may be thrown.
    assert seen <= {"discard:KS", "discard:QS", "discard:JD", "discard:TD"}
    assert len(seen) >= 2  # uniformly random among them, not a fixed choice


def test_medium_takes_a_discard_that_completes_a_meld_and_throws_high():
    view, legal = gin_decision(
        ["AC", "2C", "3C", "9D", "9H", "9S", "KS", "QD", "5H", "4S", "JH"], pile=["8H"], my_draws=6
    )
    a = get_bot("medium", seed=1).choose(view, legal)
    assert str(a) in ("discard:KS", "discard:QD", "discard:JH")
