"""Every input a user sends as JSON: record import (``POST /games/import/``) and the frames
of both sockets (the table's and the notifications', through the framing of
``core/sockets.py``). Property tests throw nesting, size and type attacks at them: the
answer is a 4xx (or the socket's error frame) with a reason, never a 500 or an exception."""
from __future__ import annotations

import asyncio
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core import jsonlimits
from core.sockets import FRAME_MAX_DEPTH, FramedConsumer
from games import engine as E
from games.consumers import TableConsumer
from games.engine.selfplay import play_game
from social.consumers import NotifyConsumer

FAST = settings(max_examples=40, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

# Any JSON value, small (hypothesis' usual recursive JSON).
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-2**70, max_value=2**70)
    | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                  max_size=4),
    max_leaves=12,
)


def nested(depth: int, kind: str, core: str = "1") -> str:
    """``core`` wrapped ``depth`` times in lists, objects or both."""
    opens = {"list": "[", "dict": '{"a":', "mixed": None}[kind]
    if opens is None:
        parts = ["[" if i % 2 else '{"a":' for i in range(depth)]
        closes = ["]" if i % 2 else "}" for i in range(depth)]
        return "".join(parts) + core + "".join(reversed(closes))
    close = "]" if kind == "list" else "}"
    return opens * depth + core + close * depth


def _record_text() -> tuple[dict, str]:
    state = play_game("classic", seed=3, num_players=2, check=False)
    record = E.GameRecord.from_state(state, players=["ann", "bob"])
    site = {"format": "ginsite-game/1", "players": [{"name": "Ann"}, {"name": "Bob"}],
            "result": state.result.to_dict(), "totals": list(state.result.totals),
            "engine": record.to_dict()}
    return site, record.to_text()


SITE, TEXT = _record_text()


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:3]):  # the first few of a long list are enough
            yield from _paths(v, (*prefix, i))


PATHS = [p for p in _paths(SITE) if p]


def _replaced(data, path, value):
    data = json.loads(json.dumps(data))
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


def _upload(client, content: str):
    return client.post("/games/import/", {
        "record": SimpleUploadedFile("r.json", content.encode(), "application/json")})


def _refused_with_reason(response):
    assert response.status_code < 500, response.status_code
    if response.status_code == 200:
        return  # the change happened to leave a valid record
    assert response.status_code == 400
    errors = response.context["form"].errors.get("record") if response.context.get("form") \
        else [response.context.get("upload_error")]
    assert errors and all(errors), response.content.decode()[:500]


# ------------------------------------------------------------------------- record import


@pytest.mark.django_db
def test_the_issue_nesting_is_refused_with_a_reason(client):
    for depth in (500, 1000, 3000):
        r = _upload(client, nested(depth, "dict"))
        assert r.status_code == 400, depth
        assert "nested more than" in r.content.decode()
    r = _upload(client, TEXT.replace("Players: ", "Players: " + "[" * 3000, 1))
    assert r.status_code == 400 and "not valid" in r.content.decode()


@pytest.mark.django_db
def test_a_record_with_a_nul_or_a_lone_surrogate_is_refused_with_a_reason(client):
    """PostgreSQL takes no NUL in a text column, and no database takes half of a surrogate
    pair (UTF-8 cannot encode it): a record holding either, in its JSON or in the text
    form's headers, is refused before anything is stored (each was a 500)."""
    for char in ("\x00", "\ud800"):
        named = _replaced(SITE, ("players",), [{"name": f"Ann{char}"}, {"name": "Bob"}])
        in_text = TEXT.replace('"ann"', json.dumps(f"a{char}nn"), 1)
        assert in_text != TEXT
        for content in (json.dumps(named), in_text):
            r = _upload(client, content)
            assert r.status_code == 400, (char, content[:80])
            assert "NUL character or half of a surrogate pair" in r.content.decode()


@pytest.mark.django_db
@FAST
@given(depth=st.integers(min_value=1, max_value=5000),
       kind=st.sampled_from(["list", "dict", "mixed"]),
       where=st.sampled_from(["top", "field", "text-players", "text-deal"]))
def test_import_nesting_attacks(client, depth, kind, where):
    if where == "top":
        content = nested(depth, kind)
    elif where == "field":
        content = json.dumps(_replaced(SITE, ("engine", "settings"), "@@")).replace(
            '"@@"', nested(depth, kind))
    elif where == "text-players":
        content = TEXT.replace('Players: ["ann", "bob"]',
                               "Players: " + nested(depth, kind, '["ann", "bob"]'), 1)
    else:
        content = TEXT.replace("Seed:", f"Deal 1: {nested(depth, kind)}\nSeed:", 1)
    _refused_with_reason(_upload(client, content))


@pytest.mark.django_db
@FAST
@given(path=st.sampled_from(PATHS), value=JSON)
@example(path=("totals",), value=True)  # found by longer runs: each was a 500
@example(path=("players",), value=1)
@example(path=("engine", "seed"), value=[1])
@example(path=("engine", "settings"), value={"game_bonus": None})
@example(path=("engine", "dealer"), value="0")
def test_import_type_attacks(client, path, value):
    _refused_with_reason(_upload(client, json.dumps(_replaced(SITE, path, value))))
    _refused_with_reason(_upload(client, json.dumps(_replaced(SITE, path, value)["engine"])
                                 if isinstance(_replaced(SITE, path, value).get("engine"), dict)
                                 else json.dumps(value)))


HEADERS = ["Mode", "Players", "Seed", "Settings", "Dealer", "Deal 1", "Result", "Format"]


@pytest.mark.django_db
@FAST
@given(header=st.sampled_from(HEADERS), value=JSON | st.text(max_size=30),
       as_json=st.booleans())
@example(header="Settings", value=None, as_json=True)  # found by a longer run: was a 500
def test_import_text_form_type_attacks(client, header, value, as_json):
    """The text form's headers carry JSON (players, settings, deals) and numbers."""
    shown = json.dumps(value) if as_json or not isinstance(value, str) else value
    shown = shown.replace("\n", " ").replace("\r", " ")
    lines = [line for line in TEXT.splitlines() if not line.startswith(f"{header}:")]
    _refused_with_reason(_upload(client, f"{header}: {shown}\n" + "\n".join(lines)))


@pytest.mark.django_db
@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(count=st.integers(min_value=1, max_value=150_000),
       shape=st.sampled_from(["moves", "players", "string", "keys", "numbers"]))
def test_import_size_attacks(client, count, shape):
    if shape == "moves":
        data = _replaced(SITE, ("engine", "moves"), [[0, "draw:stock", 0]] * (count // 20))
    elif shape == "players":
        data = _replaced(SITE, ("players",), [{"name": "x" * 10}] * (count // 20))
    elif shape == "string":
        data = _replaced(SITE, ("engine", "mode"), "x" * (count * 6))
    elif shape == "keys":
        data = _replaced(SITE, ("engine", "settings"), {f"k{i}": i for i in range(count // 15)})
    else:
        data = _replaced(SITE, ("totals",), [10**30] * (count // 40))
    _refused_with_reason(_upload(client, json.dumps(data)))


def test_the_limits_helper_refuses_depth_but_not_size():
    assert jsonlimits.loads(json.dumps([0] * 100_000)) == [0] * 100_000
    with pytest.raises(jsonlimits.JSONTooDeep):
        jsonlimits.loads(nested(65, "mixed"))
    assert jsonlimits.loads(nested(64, "mixed")) is not None
    with pytest.raises(ValueError):
        jsonlimits.loads(nested(100_000, "list"))


def test_the_limits_helper_refuses_what_only_python_writes():
    """NaN and the infinities are not JSON (an import took a record with a NaN): refused as
    any text that is not JSON is, where they stand; as text they are text."""
    for text, line in (('{"a": NaN}', 1), ('[1,\n -Infinity]', 2), ("[Infinity]", 1)):
        with pytest.raises(json.JSONDecodeError, match="is not a JSON value") as refused:
            jsonlimits.loads(text)
        assert refused.value.lineno == line
    assert jsonlimits.loads('{"a": "NaN"}') == {"a": "NaN"}


# --------------------------------------------------------------------------- socket frames


class _Probe(FramedConsumer):
    """A socket with both real consumers' message types, whose handlers only record: the
    framing and every message class's ``parse`` are what is tested."""

    max_frame = 4096

    def __init__(self):
        super().__init__()
        self.sent, self.handled, self.closed = [], [], None

    async def _send(self, frame):
        self.sent.append(frame)

    async def close(self, code=None, reason=None):
        self.closed = code

    async def _record(self, message):
        self.handled.append(message)


_Probe.HANDLERS = {
    **{f"t.{k}": (_Probe._record, cls) for k, (_h, cls) in TableConsumer.HANDLERS.items()},
    **{f"n.{k}": (_Probe._record, cls) for k, (_h, cls)
       in NotifyConsumer.HANDLERS.items()},
}
TYPES = sorted(_Probe.HANDLERS)


def _receive(text: str) -> _Probe:
    probe = _Probe()
    asyncio.run(probe.receive(text_data=text))
    assert probe.closed is None
    if probe.handled:
        assert len(probe.handled) == 1 and not probe.sent
    else:
        assert len(probe.sent) == 1, probe.sent
        frame = probe.sent[0]
        assert frame["type"] == "error"
        assert frame["code"] in ("bad_json", "bad_message", "too_large")
        assert isinstance(frame["message"], str) and frame["message"]
    return probe


@settings(max_examples=60, deadline=None, derandomize=True)
@given(kind=st.sampled_from(TYPES),
       fields=st.dictionaries(st.sampled_from(["id", "action", "version", "text", "seat",
                                               "to", "body", "client_id", "conversation",
                                               "up_to", "t", "accept", "user"]),
                              JSON, max_size=5))
def test_socket_type_attacks(kind, fields):
    _receive(json.dumps({**fields, "type": kind}))


@pytest.mark.parametrize("kind", TYPES)
def test_a_frame_with_a_nul_or_a_lone_surrogate_is_refused_with_a_reason(kind):
    for field in ("text", "body", "action", "to", "id"):
        for char in ("\x00", "\ud800", "\udfff"):
            probe = _receive(json.dumps({"type": kind, field: f"a{char}b"}))
            assert not probe.handled
            assert probe.sent[0]["code"] == "bad_message"
            assert "NUL character" in probe.sent[0]["message"]
    # a whole pair is a character like any other
    probe = _receive(json.dumps({"type": kind, "text": "\U0001F600"}))
    assert "NUL character" not in str(probe.sent)
    probe = _receive(json.dumps({"type": kind, "a\x00": 1}))
    assert not probe.handled and "NUL character" in probe.sent[0]["message"]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(depth=st.integers(min_value=1, max_value=3000),
       kind=st.sampled_from(["list", "dict", "mixed"]),
       message=st.sampled_from(TYPES))
def test_socket_nesting_attacks(depth, kind, message):
    probe = _receive(nested(depth, kind))
    assert not probe.handled
    inner = nested(depth, kind)
    probe = _receive(json.dumps({"type": message, "action": "@@", "text": "@@"})
                     .replace('"@@"', inner))
    if len(inner) * 2 < 4000 and depth + 1 > FRAME_MAX_DEPTH:  # under the size limit
        assert probe.sent[0]["code"] == "bad_json" and not probe.handled


@settings(max_examples=20, deadline=None, derandomize=True)
@given(size=st.integers(min_value=1, max_value=20_000), kind=st.sampled_from(TYPES),
       unicode=st.booleans())
def test_socket_size_attacks(size, kind, unicode):
    text = json.dumps({"type": kind, "text": ("é" if unicode else "x") * size},
                      ensure_ascii=False)
    probe = _receive(text)
    if len(text.encode()) > 4096:
        assert probe.sent[0]["code"] == "too_large"
