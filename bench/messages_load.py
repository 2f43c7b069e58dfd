"""Private messages under load: N users on real sockets, messages at a fixed rate.

Starts its own Daphne process(es) on 127.0.0.1 with the Redis channel layer and PostgreSQL,
creates its users (``bench_msg_<i>``) with the ORM, logs them in (a session row and cookie per
user, as ``Client.force_login`` does), opens one ``/ws/notify/`` socket per user, then sends
private messages at ``--rate`` messages a second for ``--duration`` seconds, each to a random
partner of the sender, the way the conversation page does: a ``send`` frame on the sender's
open socket (answered by ``ack``), or with ``--http`` an HTTP POST to the conversation page
(the no-JavaScript fallback). Every message carries its send time; the recipient's socket
measures the delivery latency (send to frame received), which is what a person waiting for a
message sees.

Run (PostgreSQL and Redis must be up)::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/ginsite_bench \\
    REDIS_URL=redis://127.0.0.1:6379/9 .venv/bin/python bench/messages_load.py

Options: ``--users 500 --rate 100 --duration 30 --servers 2 [--http] [--layer pubsub]``
(``--layer`` sets ``CHANNEL_LAYER`` for the servers: ``core`` is channels_redis's
``RedisChannelLayer``, ``pubsub`` its ``RedisPubSubChannelLayer``; default: the
environment's). Everything stays on the loopback interface; the run stops by itself (hard
limit: duration + 180 s) and stops the servers it started. Bench users' conversations are
deleted at the start of each run.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import cpu_seconds, percentile, wait_ready  # noqa: E402
from bench.messages_site import (  # noqa: E402
    HttpConnection,
    setup_users,
    start_servers,
    stop_servers,
)

# --- The load ------------------------------------------------------------------------------

async def run(args) -> dict:
    import websockets

    creds = await asyncio.to_thread(setup_users, args.users)
    servers = start_servers(args.servers)
    ports = [port for _, port in servers]
    result: dict = {}
    try:
        await asyncio.gather(*(wait_ready(p) for p in ports))
        by_name = {c["username"]: c for c in creds}
        latencies: list[float] = []
        post_times: list[float] = []  # send to answer (HTTP response or ack), ms
        pending_acks: dict[str, float] = {}
        errors: dict[str, int] = {}
        received = 0
        sent_ids: set[str] = set()
        seen_ids: set[str] = set()
        stop = asyncio.Event()

        async def listen(cred, port):
            try:
                await _listen(cred, port)
            except Exception as exc:
                cred["error"] = repr(exc)
                cred["ready"].set()

        async def _listen(cred, port):
            nonlocal received
            csrf = secrets.token_hex(16)
            cred["csrf"] = csrf
            cred["port"] = port
            headers = {"Cookie": f"sessionid={cred['session']}; csrftoken={csrf}",
                       "Origin": f"http://127.0.0.1:{port}"}
            async with websockets.connect(
                f"ws://127.0.0.1:{port}/ws/notify/", additional_headers=headers,
                open_timeout=30, ping_interval=None, max_queue=None,
            ) as ws:
                hello = json.loads(await asyncio.wait_for(ws.recv(), timeout=30))
                assert hello["type"] == "hello", hello
                cred["ws"] = ws
                cred["ready"].set()
                pinger = asyncio.create_task(heartbeat(ws))
                try:
                    async for raw in ws:
                        now = time.time()
                        if raw.startswith('{"type":"ack"') or raw.startswith('{"type":"error"'):
                            frame = json.loads(raw)
                            started = pending_acks.pop(str(frame.get("client_id")), None)
                            if frame["type"] == "ack" and started is not None:
                                post_times.append((now - started) * 1000)
                            elif started is not None:
                                key = f"error {frame.get('code')}"
                                errors[key] = errors.get(key, 0) + 1
                                if errors[key] == 1:
                                    print(key, raw[:300], file=sys.stderr)
                            continue
                        if '"mine":false' not in raw:
                            continue
                        frame = json.loads(raw)
                        body = frame["message"]["body"]
                        if body.startswith("bench "):
                            _, tag, sent_at = body.split(" ", 2)
                            if tag not in seen_ids:
                                seen_ids.add(tag)
                                received += 1
                                latencies.append((now - float(sent_at)) * 1000)
                except websockets.ConnectionClosed:
                    if not stop.is_set():
                        raise
                finally:
                    pinger.cancel()

        async def heartbeat(ws):
            # The notification socket's presence heartbeat, as notify.js sends it.
            await asyncio.sleep(random.uniform(0, 25))
            while True:
                await ws.send('{"type":"ping"}')
                await asyncio.sleep(25)

        for c in creds:
            c["ready"] = asyncio.Event()
        t0 = time.monotonic()
        listeners = []
        # Open the sockets in waves so the servers are not flooded with handshakes.
        for start in range(0, len(creds), 50):
            wave = creds[start:start + 50]
            listeners += [
                asyncio.create_task(listen(c, ports[(start + i) % len(ports)]))
                for i, c in enumerate(wave)
            ]
            await asyncio.wait_for(
                asyncio.gather(*(c["ready"].wait() for c in wave)), timeout=60
            )
        connect_seconds = time.monotonic() - t0
        failed = [c for c in creds if c.get("error")]
        if failed:
            raise RuntimeError(f"{len(failed)} sockets failed: {failed[0]['error']}")
        await asyncio.sleep(2)  # let presence broadcasts settle

        pools = {p: [HttpConnection(p) for _ in range(args.connections)] for p in ports}
        rng = random.Random(7)
        names = [c["username"] for c in creds]
        partners = {n: rng.sample(names, 5) for n in names}

        async def send_one(n, sender):
            recipient = rng.choice([p for p in partners[sender] if p != sender])
            cred = by_name[sender]
            if not args.http:
                # On the sender's open socket, as social.js does.
                tag = f"{n}"
                start = time.time()
                sent_ids.add(tag)
                pending_acks[tag] = start
                frame = {"type": "send", "client_id": tag, "to": by_name[recipient]["id"],
                         "body": f"bench {tag} {start:.6f}"}
                try:
                    await cred["ws"].send(json.dumps(frame))
                except Exception as exc:
                    pending_acks.pop(tag, None)
                    errors[type(exc).__name__] = errors.get(type(exc).__name__, 0) + 1
                return
            # POST to a server other than the recipient's socket half the time: the
            # channel layer must carry it across processes.
            port = rng.choice(ports)
            conn = pools[port][n % args.connections]
            tag = f"{n}"
            start = time.time()
            headers = {
                "Cookie": f"sessionid={cred['session']}; csrftoken={cred['csrf']}",
                "X-CSRFToken": cred["csrf"],
                "Origin": f"http://127.0.0.1:{port}",
                "Accept": "application/json",
            }
            sent_ids.add(tag)
            try:
                status, data = await conn.post(
                    f"/messages/with/{recipient}/", {"body": f"bench {tag} {start:.6f}"}, headers
                )
            except Exception as exc:  # connection trouble counts as an error
                errors[type(exc).__name__] = errors.get(type(exc).__name__, 0) + 1
                return
            post_times.append((time.time() - start) * 1000)
            if status != 200:
                key = f"HTTP {status}"
                errors[key] = errors.get(key, 0) + 1
                if errors[key] == 1:
                    print(key, data[:300], file=sys.stderr)

        total = int(args.rate * args.duration)
        interval = 1.0 / args.rate
        tasks = []
        cpu_before = sum(cpu_seconds(proc.pid) for proc, _ in servers)
        client_cpu_before = time.process_time()
        begin = time.monotonic()
        for n in range(total):
            target = begin + n * interval
            delay = target - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(send_one(n, rng.choice(names))))
        await asyncio.gather(*tasks)
        if not args.http:  # the acks of the last sends (at most 10 s)
            deadline = time.monotonic() + 10
            while pending_acks and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
        send_seconds = time.monotonic() - begin
        server_cpu = sum(cpu_seconds(proc.pid) for proc, _ in servers) - cpu_before
        client_cpu = time.process_time() - client_cpu_before
        # Wait for the stragglers (at most 10 s).
        deadline = time.monotonic() + 10
        ok_sent = len(post_times) - sum(v for k, v in errors.items() if k.startswith("HTTP"))
        if not args.http:
            ok_sent = len(post_times)  # acknowledged sends
        while received < ok_sent and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        stop.set()
        await asyncio.gather(*(c["ws"].close() for c in creds if c.get("ws")),
                             return_exceptions=True)
        await asyncio.gather(*listeners, return_exceptions=True)
        result = {
            "send_path": "http" if args.http else "websocket",
            "channel_layer": "core" if os.environ.get("CHANNEL_LAYER") == "list" else "pubsub",
            "users_connected": len(creds),
            "servers": len(ports),
            "connect_seconds": round(connect_seconds, 2),
            "messages_sent": len(sent_ids),
            "messages_delivered": received,
            # Still on the way 10 s after the last send (a backlog, or dropped by the layer).
            "not_delivered_10s_after_end": ok_sent - received,
            "errors": errors,
            "send_rate_msg_s": round(len(post_times) / send_seconds, 1),
            "delivered_msg_s": round(received / send_seconds, 1),
            "latency_ms": {
                "p50": round(percentile(latencies, 0.50), 1),
                "p90": round(percentile(latencies, 0.90), 1),
                "p99": round(percentile(latencies, 0.99), 1),
                "max": round(max(latencies), 1) if latencies else None,
                "mean": round(statistics.fmean(latencies), 1) if latencies else None,
            },
            # CPU the Daphne processes spent per message (send frame or HTTP POST, database,
            # fan-out to both participants' sockets, plus the presence heartbeats meanwhile).
            "server_cpu_ms_per_message": round(server_cpu * 1000 / max(1, len(post_times)), 2),
            "client_cpu_share": round(client_cpu / send_seconds, 2),
            "load_average": [round(x, 1) for x in os.getloadavg()],
            # Send to answer: the ack on the socket, or the HTTP response with --http.
            "answer_ms": {
                "p50": round(percentile(post_times, 0.50), 1),
                "p99": round(percentile(post_times, 0.99), 1),
            },
        }
    finally:
        stop_servers(servers)
        for proc, _ in servers:
            err = Path(proc.log_path).read_text(errors="replace")
            if "Traceback" in err:
                print(f"server errors, see {proc.log_path}:", err[:2000], file=sys.stderr)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=500)
    parser.add_argument("--rate", type=float, default=100.0, help="messages per second")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds of sending")
    parser.add_argument("--servers", type=int, default=2, help="Daphne processes")
    parser.add_argument("--connections", type=int, default=16,
                        help="keep-alive HTTP connections per server (with --http)")
    parser.add_argument("--http", action="store_true",
                        help="send by HTTP POST (the no-JavaScript fallback) instead of a "
                             "send frame on the sender's socket")
    parser.add_argument("--layer", choices=["core", "pubsub"],
                        help="the servers' channel layer (default: the site's, pubsub)")
    args = parser.parse_args()
    if args.layer:
        os.environ["CHANNEL_LAYER"] = "list" if args.layer == "core" else "pubsub"
    if not os.environ.get("DATABASE_URL") or not os.environ.get("REDIS_URL"):
        sys.exit("Set DATABASE_URL (PostgreSQL) and REDIS_URL: the bench measures the "
                 "production setup.")
    # Sessions are signed: the servers and the setup must share the key.
    os.environ["SECRET_KEY"] = secrets.token_urlsafe(60)

    async def bounded():
        return await asyncio.wait_for(run(args), timeout=args.duration + 180)

    result = asyncio.run(bounded())
    print(json.dumps(result, indent=2))
    p99 = result.get("latency_ms", {}).get("p99")
    goal = "met" if p99 is not None and p99 <= 100 else "NOT met"
    print(f"goal p99 <= 100 ms at {args.rate:g} msg/s: {goal}")


if __name__ == "__main__":
    main()
