"""A complete bot for the site's bot API (docs/bot-api.md): accepts challenges, plays every
game it sits at over the table socket, can challenge a player. Standard library + websockets.
Run: GIN_SITE=http://127.0.0.1:8000 GIN_TOKEN=gin_... python gin_bot.py [--challenge alice]
"""
import argparse
import json
import os
import threading
import time
import urllib.error
import urllib.request

from websockets.exceptions import WebSocketException
from websockets.sync.client import connect

RANKS = "A23456789TJQK"


def friends(card, hand):
    """How many cards of ``hand`` could meld with ``card`` (same rank, or same suit near it)."""
    rank = RANKS.index(card[0])
    return sum(1 for c in hand if c != card and (c[0] == card[0] or (
        c[1] == card[1] and abs(RANKS.index(c[0]) - rank) <= 2)))


def worst(moves, hand):
    """Of moves that give a card away ("discard:QS"), the one whose card has the fewest
    friends, then the highest rank (the most deadwood)."""
    return min(moves, key=lambda m: (friends(m[-2:], hand), -RANKS.index(m[-2])))


def choose(view):
    """The simple policy: go out or knock when the rules allow, meld and lay off what it
    can, take the first upcard only when it has two friends, else draw from the stock (so
    every turn uses up the stock and every hand ends), and throw the loneliest high card."""
    legal, hand = view["legal_actions"], view.get("hand") or []
    for first in ("big_gin", "gin:", "go_out:", "knock:", "meld:", "layoff:", "accept_layoffs"):
        if moves := [m for m in legal if m.startswith(first)]:
            return worst(moves, hand) if first in ("gin:", "go_out:", "knock:") else moves[0]
    if discards := [m for m in legal if m.startswith("discard:")]:
        return worst(discards, hand)
    up = view.get("upcard")
    if "take_upcard" in legal and up and friends(up, hand) >= 2:
        return "take_upcard"
    return next((m for m in ("draw:stock", "pass", "done") if m in legal), legal[0])


class Bot:
    def __init__(self, site, token, log=None):
        self.site, self.token, self.log = site.rstrip("/"), token, log
        self.playing, self.finished, self.round_trips, self.mine = set(), [], [], None
        self.lock = threading.Lock()

    def api(self, method, path, body=None):
        request = urllib.request.Request(
            self.site + path, data=body and json.dumps(body).encode(), method=method,
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=15) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")

    def socket(self, path):
        return connect("ws" + self.site[4:] + path, open_timeout=10, max_size=2**22,
                       additional_headers={"Authorization": f"Bearer {self.token}"})

    def play(self, table_id):
        """Play the game at ``table_id`` to its end; returns the table's ``finish``."""
        shown, sent, last, acted = 0, {}, 0.0, None
        with self.socket(f"/ws/table/{table_id}/") as ws:
            while True:
                try:
                    text = ws.recv(timeout=4)
                except TimeoutError:  # nothing for 4 s: a lost frame costs seconds, not a turn
                    ws.send(json.dumps({"type": "ping"}))
                    continue
                if self.log:
                    with self.lock, open(self.log, "a") as out:
                        out.write(text + "\n")
                frame = json.loads(text)
                if frame["type"] == "ack" and frame["id"] in sent:
                    self.round_trips.append(time.monotonic() - sent.pop(frame["id"]))
                if frame["type"] == "pong" and (frame.get("version") or 0) > shown:
                    ws.send(json.dumps({"type": "snapshot"}))
                if frame["type"] not in ("snapshot", "state") or frame["version"] < shown:
                    continue
                shown = frame["version"]
                if frame["table"]["status"] in ("finished", "abandoned"):
                    return frame["table"]["finish"]
                key = f"t{table_id}-v{shown}"  # one per version: sent again, a duplicate
                if frame["view"] and frame["view"]["legal_actions"] and key != acted:
                    time.sleep(max(0.0, last + 0.25 - time.monotonic()))  # < 100 frames in 20 s
                    sent[key] = last = time.monotonic()
                    acted = key  # (a snapshot of the same version asks for nothing new)
                    ws.send(json.dumps({"type": "action", "action": choose(frame["view"]),
                                        "version": shown, "id": key}))

    def start(self, table_id):
        with self.lock:
            new = table_id not in self.playing
            self.playing.add(table_id)
        if new:
            threading.Thread(target=self.finish, args=(table_id,), daemon=True).start()

    def finish(self, table_id):
        for attempt in range(40):  # the socket closed ("unavailable", a restart): join again,
            try:                    # at most 8 s apart (a turn runs on 30 s after a restart)
                result = self.play(table_id)
                break
            except Exception as error:
                result = f"error {error!r}"
                time.sleep(min(1 + attempt, 8))
        with self.lock:
            self.finished.append((table_id, result))
        print(f"table {table_id} over: {result}", flush=True)

    def answer(self, challenge, modes):
        verb = "accept" if challenge["mode"] in modes else "decline"
        status, body = self.api("POST", f"/api/bot/challenges/{challenge['id']}/{verb}/")
        if verb == "accept" and status == 200:
            self.start(body["challenge"]["table"]["id"])

    def run(self, modes, games=0, challenge=None):
        """Listen for challenges and games until ``games`` games are over (0: for ever),
        joining the notification socket again whenever it drops."""
        while not games or len(self.finished) < games:
            try:
                with self.socket("/ws/notify/") as ws:
                    for game in self.api("GET", "/api/bot/games/")[1].get("games", []):
                        self.start(game["id"])  # resume what was running before a drop
                    for waiting in self.api("GET", "/api/bot/challenges/")[1].get("incoming", []):
                        self.answer(waiting, modes)
                    if challenge:
                        status, body = self.api("POST", "/api/bot/challenges/", challenge)
                        print("challenge:", status, body, flush=True)
                        if status != 201:
                            raise SystemExit("the challenge was refused")
                        challenge, self.mine = None, body["challenge"]["id"]
                    self.listen(ws, modes, games)
            except (OSError, WebSocketException) as error:  # the site restarted: join again
                print("notification socket:", repr(error), flush=True)
                if getattr(getattr(error, "rcvd", None), "code", 0) in (4401, 4403):
                    raise SystemExit("the site refused the token (revoked?)") from None
                time.sleep(2)
        time.sleep(0.5)  # let the last game's thread print

    def listen(self, ws, modes, games):
        while not games or len(self.finished) < games:
            try:  # 5 s: with --games it stops at most 5 s after its last game
                frame = json.loads(ws.recv(timeout=5))
            except TimeoutError:
                ws.send(json.dumps({"type": "ping"}))  # the socket's heartbeat
                continue
            if frame["type"] == "challenge" and frame["event"] == "received":
                self.answer(frame["challenge"], modes)
            elif frame["type"] == "challenge" and frame["challenge"]["id"] == self.mine and \
                    frame["event"] in ("declined", "expired", "cancelled"):
                raise SystemExit(f"the challenge was {frame['event']}")
            elif frame["type"] == "game_start":
                self.start(frame["table"]["id"])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for flag, kind, default in (
            ("--modes", str, "classic,straight,oklahoma,hollywood,rummy"),
            ("--games", int, 0),  # stop after this many games (0: never)
            ("--challenge", str, None),  # challenge this player (a username) first
            ("--mode", str, "classic"), ("--target", int, None), ("--seconds", int, 30),
            ("--log", str, None)):  # append every table frame received to this file
        parser.add_argument(flag, type=kind, default=default)
    parser.add_argument("--rated", action="store_true")
    args = parser.parse_args()
    offer = args.challenge and {"to": args.challenge, "mode": args.mode, "target": args.target,
                                "seconds_per_turn": args.seconds, "rated": args.rated}
    bot = Bot(os.environ.get("GIN_SITE", "http://127.0.0.1:8000"), os.environ["GIN_TOKEN"],
              log=args.log)
    bot.run(set(args.modes.split(",")), games=args.games, challenge=offer)
