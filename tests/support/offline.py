"""Offline games for the tests (docs/offline.md): a whole local game played by the local
table (``games.local.table``) as the browser's worker plays it, and its upload."""
from __future__ import annotations

import json
import uuid

from games.local import table as T

URL = "/play/offline/upload/"


def play(mode="classic", level=1, computers=1, target=50, seed=7, resign_after=None):
    """A whole local game, the person always choosing a simple legal move."""
    r = json.loads(T.handle(json.dumps({"op": "new", "config": {
        "mode": mode, "level": level, "computers": computers, "target": target, "seed": seed,
        "id": str(uuid.uuid4()), "name": "Ann"}, "now": 1_700_000_000_000})))
    assert r["ok"], r
    doc, frames_seen, n = r["doc"], [r["frame"]], 0
    while doc["status"] == "playing":
        n += 1
        if resign_after is not None and n > resign_after:
            r = json.loads(T.handle(json.dumps({"op": "resign", "doc": doc})))
        elif r["bot_seat"] is not None:
            r = json.loads(T.handle(json.dumps({"op": "bot", "doc": doc})))
        else:
            legal = r["frame"]["view"]["legal_actions"]
            pick = next((a for p in ("gin", "knock", "go_out", "draw:stock", "pass", "discard")
                         for a in legal if a.startswith(p)), legal[0])
            r = json.loads(T.handle(json.dumps({"op": "act", "doc": doc, "action": pick})))
        assert r["ok"], r
        doc = r["doc"]
        frames_seen.append(r["frame"])
        assert n < 5000
    rec = json.loads(T.handle(json.dumps({"op": "record", "doc": doc})))
    assert rec["ok"], rec
    return doc, frames_seen, rec["record"]


def post(client, payload, **extra):
    body = payload if isinstance(payload, bytes | str) else json.dumps(payload)
    return client.post(URL, body, content_type="application/json", **extra)
