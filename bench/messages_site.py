"""The private-messages benchmark's site (bench/messages_load.py): its users and their
sessions made with the ORM, its Daphne processes, and a tiny keep-alive HTTP/1.1 client for
the no-JavaScript fallback."""
from __future__ import annotations

import asyncio
import os
import secrets
import signal
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import free_port  # noqa: E402

# --- Setup with the ORM --------------------------------------------------------------------

def setup_users(count: int) -> list[dict]:
    """Create (or reuse) the bench users and a session for each; returns their credentials."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginsite.settings")
    from ginsite.localfiles import prepare

    prepare()
    django.setup()
    from datetime import timedelta

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore
    from django.utils import timezone

    from accounts.models import User
    from social.models import Conversation

    names = [f"bench_msg_{i:04d}" for i in range(count)]
    existing = set(User.objects.filter(username__in=names).values_list("username", flat=True))
    old = timezone.now() - timedelta(days=30)
    User.objects.bulk_create(
        [
            User(username=n, email=f"{n}@bench.invalid", date_joined=old, password="!")
            for n in names if n not in existing
        ]
    )
    users = list(User.objects.filter(username__in=names).order_by("username"))
    User.objects.filter(pk__in=[u.pk for u in users]).update(date_joined=old)
    Conversation.objects.filter(user_low__in=users).delete()
    creds = []
    for user in users:
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        creds.append({"id": user.pk, "username": user.username, "session": store.session_key})
    return creds


# --- Servers ---------------------------------------------------------------------------------

LOG_DIR = Path(os.environ.get("BENCH_LOG_DIR", "/tmp"))


def start_servers(n: int) -> list[tuple[subprocess.Popen, int]]:
    env = dict(os.environ)
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "ginsite.settings",
            "DEBUG": "0",
            "SECURE_SSL_REDIRECT": "0",
            "ALLOWED_HOSTS": "127.0.0.1",
            "SOCIAL_MESSAGE_RATE": "100000",  # the bench measures delivery, not the limiter
            "DB_POOL": os.environ.get("DB_POOL", "16"),
            # A fresh channel prefix: groups left behind by an earlier run cost nothing.
            "CHANNEL_PREFIX": f"bench-{secrets.token_hex(4)}",
            "LOG_LEVEL": "WARNING",
        }
    )
    servers = []
    for _ in range(n):
        port = free_port()
        log = open(LOG_DIR / f"messages_load_daphne_{port}.log", "wb")  # noqa: SIM115
        command = [str(ROOT / ".venv/bin/daphne"), "-b", "127.0.0.1", "-p", str(port), "-v", "0",
                   "ginsite.asgi:application"]
        if os.environ.get("BENCH_PROFILE"):  # a directory: cProfile each server into it
            command = [sys.executable, "-m", "cProfile", "-o",
                       f"{os.environ['BENCH_PROFILE']}/daphne_{port}.prof", *command]
        proc = subprocess.Popen(
            command,
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        proc.log_path = log.name
        log.close()
        servers.append((proc, port))
    return servers


def stop_servers(servers) -> None:
    for proc, _ in servers:
        if proc.poll() is None:
            # SIGINT stops Twisted's reactor cleanly (and lets cProfile write its file).
            os.killpg(proc.pid, signal.SIGINT)
    for proc, _ in servers:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


# --- A tiny keep-alive HTTP/1.1 client (loopback only) ----------------------------------------

class HttpConnection:
    def __init__(self, port: int):
        self.port = port
        self.reader = self.writer = None
        self.lock = asyncio.Lock()

    async def _open(self):
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)

    async def post(self, path: str, form: dict, headers: dict) -> tuple[int, bytes]:
        async with self.lock:
            for attempt in range(2):
                try:
                    if self.writer is None:
                        await self._open()
                    return await self._post(path, form, headers)
                except (ConnectionError, asyncio.IncompleteReadError):
                    self.writer = None
                    if attempt:
                        raise
            raise AssertionError("unreachable")

    async def _post(self, path, form, headers):
        body = urlencode(form).encode()
        head = [
            f"POST {path} HTTP/1.1",
            f"Host: 127.0.0.1:{self.port}",
            "Content-Type: application/x-www-form-urlencoded",
            f"Content-Length: {len(body)}",
            "Connection: keep-alive",
        ] + [f"{k}: {v}" for k, v in headers.items()]
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        await self.writer.drain()
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("closed")
        status = int(status_line.split()[1])
        length = 0
        chunked = False
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
            elif name.lower() == "transfer-encoding" and "chunked" in value.lower():
                chunked = True
        if chunked:
            data = b""
            while True:
                size = int((await self.reader.readline()).strip(), 16)
                if size == 0:
                    await self.reader.readline()
                    break
                data += await self.reader.readexactly(size)
                await self.reader.readline()
        else:
            data = await self.reader.readexactly(length)
        return status, data
