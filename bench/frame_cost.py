"""What forwarding one move's ``state`` frame costs a Daphne, per socket, in microseconds:
the steps of ``TableConsumer.table_frames`` and of the channel layer under it, timed in one
process on a real mid-game frame (a two-player table on a scratch SQLite database).

* ``encode per socket``: the frame copied with the connection's parts and encoded whole
  (``for_connection`` + ``json.dumps``: what every socket did before the per-audience
  encoding);
* ``spliced, first socket``: the audience's text encoded around its clock, then the
  connection's clock and ``you`` put in (the first socket of an audience in a process);
* ``spliced, memo hit``: every further socket of that audience (the memo's look-up and the
  connection's parts);
* ``layer copy``: what the channel layer does per socket before the consumer sees the
  message: the in-memory layer's ``deepcopy``, the Redis pub/sub layer's ``msgpack`` decode
  (each socket decodes the whole message: every seat's frame);
* with ``orjson`` installed, the same encodings by ``orjson.dumps``.

    .venv/bin/python bench/frame_cost.py [--moves 12] [--json]

Each figure is the best of 7 rounds of 2,000 calls (the least disturbed by other work on a
shared machine), so they compare with each other, not with a socket's whole cost.
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import random
import sys
import tempfile
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def setup(path: str) -> None:
    import django

    os.environ["DJANGO_SETTINGS_MODULE"] = "ginsite.settings"
    os.environ["SQLITE_PATH"] = path
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("REDIS_URL", None)
    from ginsite.localfiles import prepare

    prepare()
    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def a_frame_message(moves: int):
    """The ``table.frames`` message of a started table after ``moves`` moves, and a player."""
    from django.contrib.auth import get_user_model

    from games import engine as E
    from games import frames, services, states, timeouts
    from games.models import Room, Seat, Table
    from games.rooms import ensure_default_rooms

    ensure_default_rooms(Room)
    user = get_user_model().objects.create_user
    alice, bob = user("cost-a", password=None), user("cost-b", password=None)
    table = services.table_create(user=alice, room=Room.objects.get(slug="classic"),
                                  seat_count=2, seconds_per_turn=60, target=100)
    services.table_sit(table_id=table.pk, user=bob)
    rng = random.Random(3)
    for _ in range(moves):
        table = Table.objects.get(pk=table.pk)
        state = states.load(table.state)
        if state.to_act is None:
            break
        action = timeouts.safe_action(state) if rng.random() < 0.5 else str(
            rng.choice(E.legal_actions(state)))
        services.table_act(table_id=table.pk, user=[alice, bob][state.to_act],
                           action=action, expected_version=table.version)
    table = Table.objects.get(pk=table.pk)
    seats = list(Seat.objects.filter(table=table).select_related("user").order_by("index"))
    bodies = frames.table_state_frames(table, seats)()
    message = {"type": "table.frames", "frames": bodies, "table_id": table.pk,
               "version": table.version, "publish": "0" * 32}
    return message, alice


def orjson_split(frame):
    """The audience's text around its clock, encoded by orjson (to a str, as sockets send)."""
    import orjson

    keys = list(frame)
    at = keys.index("clock")
    before = orjson.dumps({k: frame[k] for k in keys[:at]}).decode()
    after = orjson.dumps({k: frame[k] for k in keys[at + 1:]}).decode()
    return before[:-1] + ',"clock":', "," + after[1:-1]


def orjson_hit(parts, frame, user):
    import orjson

    from games import frames

    clock = frames.with_remaining(frame["clock"])
    you = frames.you_data(user=user, seat=0, table=frame["table"], seats=frame["seats"])
    return "".join((parts[0], orjson.dumps(clock).decode(), parts[1], ',"you":',
                    orjson.dumps(you).decode(), "}"))


def orjson_spliced(frame, user):
    return orjson_hit(orjson_split(frame), frame, user)


def best(fn, number: int = 2000, repeat: int = 7) -> float:
    """Microseconds a call, best of ``repeat`` rounds."""
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=12)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="frame-cost-") as folder:
        setup(str(Path(folder) / "db.sqlite3"))
        import msgpack

        from core import wire
        from games import frames

        message, alice = a_frame_message(args.moves)
        frame = frames.frame_for(message["frames"], 0)
        memo = wire.Memo()
        spliced = frames.state_spliced(frame)
        packed = msgpack.packb(message, use_bin_type=True)

        def old():
            return json.dumps(frames.for_connection(frame, user=alice, seat=0),
                              separators=(",", ":"))

        def first():
            return frames.connection_text(frames.state_spliced(frame), frame, user=alice,
                                          seat=0)[0]

        def hit():
            s = memo.get(("0" * 32, "0"), lambda: spliced)
            return frames.connection_text(s, frame, user=alice, seat=0)[0]

        from django.utils import timezone

        real_now, fixed = timezone.now, timezone.now()
        timezone.now = lambda: fixed  # one remaining_ms for the three texts
        assert old() == first() == hit()
        timezone.now = real_now
        figures = {
            "frame_bytes": len(old()),
            "message_bytes_msgpack": len(packed),
            "encode per socket (before)": best(old),
            "spliced, first socket": best(first),
            "spliced, memo hit": best(hit),
            "connection parts only (clock, you)": best(
                lambda: (frames.with_remaining(frame["clock"]),
                         frames.you_data(user=alice, seat=0, table=frame["table"],
                                         seats=frame["seats"]))),
            "layer copy: in-memory deepcopy": best(lambda: copy.deepcopy(message), 500),
            "layer copy: pub/sub msgpack decode": best(
                lambda: msgpack.unpackb(packed, raw=False), 500),
        }
        try:
            import orjson
        except ImportError:
            figures["orjson"] = "not installed"
        else:
            whole = frames.for_connection(frame, user=alice, seat=0)
            spliced_o = orjson_split(frame)
            assert json.loads(orjson.dumps(whole)) == whole
            figures["encode whole frame: json"] = best(
                lambda: json.dumps(whole, separators=(",", ":")))
            figures["encode whole frame: orjson"] = best(lambda: orjson.dumps(whole))
            figures["encode whole message: json"] = best(
                lambda: json.dumps(message, separators=(",", ":")), 500)
            figures["encode whole message: orjson"] = best(lambda: orjson.dumps(message), 500)
            figures["spliced, first socket: orjson parts"] = best(
                lambda: orjson_spliced(frame, alice))
            figures["spliced, memo hit: orjson parts"] = best(
                lambda: orjson_hit(spliced_o, frame, alice))
    rounded = {k: round(v, 2) if isinstance(v, float) else v for k, v in figures.items()}
    if args.json:
        print(json.dumps(rounded))
    else:
        for key, value in rounded.items():
            unit = "" if isinstance(value, str) or key.endswith("bytes") or "bytes" in key \
                else " us"
            print(f"{key:>40}: {value}{unit}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
