"""A bot account can be blocked like anyone (docs/bot-api.md, "Bot accounts"): the block
button works on its profile, a blocked bot cannot message its blocker, and the lists show
its BOT badge."""
from __future__ import annotations

import pytest
from django.urls import reverse

from social.models import Block
from social.policy import can_message
from tests.support.accounts import make_bot

pytestmark = pytest.mark.django_db


def test_a_bot_is_blocked_like_anyone(client, alice, make_user):
    bot = make_bot(make_user("robo"))
    client.force_login(alice)
    assert can_message(bot, alice).allowed
    profile = client.get(bot.get_absolute_url()).content.decode()
    assert reverse("social:block", args=["robo"]) in profile
    response = client.post(reverse("social:block", args=["robo"]))
    assert response.status_code == 302
    assert Block.objects.filter(blocker=alice, blocked=bot).exists()
    assert not can_message(bot, alice).allowed
    privacy = client.get(reverse("social:privacy")).content.decode()
    assert "robo" in privacy and 'class="badge badge-bot"' in privacy
