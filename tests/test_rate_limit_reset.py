"""Each test starts with every rate-limit budget whole (``tests/conftest.py``), and nothing
else in the cache is touched: with Redis (CI's second pass) the counts outlive a test, and a
live server's calls from 127.0.0.1 in one test had spent the next one's budget."""
import pytest
from django.core.cache import cache

from accounts.api import ApiError, address_rate_limit
from social.policy import rate_limit
from tests.support.accounts import clear_rate_limits

ADDRESS = "203.0.113.5"


def spend_the_address_budget() -> None:
    with pytest.raises(ApiError) as refused:
        for _ in range(1000):
            address_rate_limit(ADDRESS)
    assert refused.value.status == 429


def test_the_budgets_are_whole_again_and_nothing_else_is_touched():
    spend_the_address_budget()
    assert rate_limit("message", 7, limit=2, period=60, hit=True) is None
    assert rate_limit("message", 7, limit=2, period=60, hit=True) is None
    assert rate_limit("message", 7, limit=2, period=60, hit=True) is not None
    cache.set("allauth:rl:account:login_failed:5/m/ip:abc", [1.0] * 10, 60)
    cache.set("games:chat-rate:7", 99, 60)
    cache.set("games:room-online:basic", {"x": ("alice", "alice", 1.0)}, 60)
    cache.set("social:playing:7", {"table_id": 1, "url": "/t/1/"}, 60)

    clear_rate_limits()

    address_rate_limit(ADDRESS)  # no longer over the budget
    assert rate_limit("message", 7, limit=2, period=60, hit=False) is None
    assert cache.get("allauth:rl:account:login_failed:5/m/ip:abc") is None
    assert cache.get("games:chat-rate:7") is None
    assert cache.get("games:room-online:basic") == {"x": ("alice", "alice", 1.0)}
    assert cache.get("social:playing:7") == {"table_id": 1, "url": "/t/1/"}


def test_a_test_starts_with_the_budget_whole_even_after_another_spent_it():
    spend_the_address_budget()  # (whichever of the two runs first, the other starts whole)


def test_and_the_next_one_does_too():
    address_rate_limit(ADDRESS)
    spend_the_address_budget()
