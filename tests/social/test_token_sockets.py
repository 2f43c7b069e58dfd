"""A program's sockets (opened with an API token, docs/bot-api.md "Playing") close with 4401
the moment the token is revoked, or its account closed, as a new handshake with it would be
refused; another token's sockets stay open."""
from __future__ import annotations

from types import SimpleNamespace

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from accounts.models import ApiToken
from accounts.services import account_close, api_token_revoke
from games import broadcast
from games import services as games
from games.models import Room
from games.rooms import ensure_default_rooms
from ginsite.asgi import application
from tests.support.accounts import api_token, bearer, clear_cache, make_bot

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.usefixtures("close_worker_thread_connections")]

WAIT = 3


def _bot_with_tokens(make_user):
    bot = make_bot(make_user("tbot"))
    return bot, api_token(bot, "bot:play", name="one"), api_token(bot, "bot:play", name="two")


async def _open(path: str, raw: str) -> WebsocketCommunicator:
    auth = bearer(raw)["HTTP_AUTHORIZATION"].encode()
    comm = WebsocketCommunicator(application, path, headers=[(b"authorization", auth)])
    connected, _ = await comm.connect(timeout=WAIT)
    assert connected
    first = await comm.receive_output(timeout=WAIT)
    assert first["type"] == "websocket.send", first  # hello / snapshot: it is open
    return comm


async def _closed_with(comm: WebsocketCommunicator) -> int | None:
    while True:
        out = await comm.receive_output(timeout=WAIT)
        if out["type"] == "websocket.close":
            return out.get("code")


def _table(make_user) -> int:
    ensure_default_rooms(Room)
    return games.table_create(user=make_user("host"), room=Room.objects.get(slug="classic")).pk


async def test_revoking_a_token_closes_its_open_sockets_at_once(make_user):
    bot, one, two = await sync_to_async(_bot_with_tokens)(make_user)
    table_id = await sync_to_async(_table)(make_user)
    notify = await _open("/ws/notify/", one)
    table = await _open(f"/ws/table/{table_id}/", one)
    other = await _open("/ws/notify/", two)
    token_id = await sync_to_async(lambda: ApiToken.objects.get(name="one").pk)()
    await sync_to_async(api_token_revoke)(user=bot, token_id=token_id)
    assert await _closed_with(notify) == 4401
    assert await _closed_with(table) == 4401
    # frames still arriving on the closed socket get nothing
    await table.send_to(text_data='{"type": "ping"}')
    assert await table.receive_nothing(timeout=0.3)
    # nor does a frame of its table's group that comes after the close (one sent before it
    # can reach the consumer late through Redis, under load)
    await get_channel_layer().group_send(
        broadcast.table_group(table_id),
        {"type": "table.chat", "message": {"user": "host", "text": "late"}})
    assert await table.receive_nothing(timeout=0.3)
    # the other token's socket is untouched
    await other.send_to(text_data='{"type": "ping"}')
    while (await other.receive_json_from(timeout=WAIT))["type"] != "pong":
        pass
    await other.disconnect()


async def test_closing_the_account_closes_its_programs_sockets(make_user):
    bot, one, _ = await sync_to_async(_bot_with_tokens)(make_user)
    notify = await _open("/ws/notify/", one)
    await sync_to_async(account_close)(user=bot)
    assert await _closed_with(notify) == 4401


async def test_unknown_tokens_on_sockets_count_against_the_address(make_user, settings,
                                                                  monkeypatch):
    """Guessing tokens by socket handshakes is limited as over HTTP: an unknown token counts
    against its address's limit for calls without a token, and past it the handshake closes
    with 4429 (the HTTP 429) instead of 4401."""
    import accounts.api

    settings.ACCOUNTS_API_ANON_RATE_REQUESTS = 2
    # one window whatever the clock, and no count left from another test (Redis keeps them)
    monkeypatch.setattr(accounts.api, "time", SimpleNamespace(time=lambda: 1_800_000_030.0))
    await sync_to_async(clear_cache)()
    codes = []
    for _ in range(3):
        comm = WebsocketCommunicator(application, "/ws/notify/",
                                     headers=[(b"authorization", b"Bearer gin_guessed")])
        await comm.connect(timeout=WAIT)
        codes.append(await _closed_with(comm))
    assert codes == [4401, 4401, 4429]
    # the address's limit, not the token's: a valid token still opens
    bot, one, _ = await sync_to_async(_bot_with_tokens)(make_user)
    await (await _open("/ws/notify/", one)).disconnect()
