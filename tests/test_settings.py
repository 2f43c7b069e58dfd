"""Production-mode settings, checked in fresh processes (settings are read at start-up)."""
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_manage(*args, **env_overrides):
    env = {
        k: v for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "CHANNEL_LAYER"}
    }
    env.update(DJANGO_SETTINGS_MODULE="ginsite.settings", **env_overrides)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_refuses_default_or_short_secret_key():
    for key in ("insecure-dev-key-change-me-in-production", "short"):
        result = run_manage("check", DEBUG="0", SECRET_KEY=key, ALLOWED_HOSTS="gin.example.com")
        assert result.returncode != 0
        assert "SECRET_KEY" in result.stderr


def test_check_deploy_is_clean_in_production_mode():
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DEBUG="0",
        HTTPS="1",
        SECRET_KEY=secrets.token_urlsafe(64),
        ALLOWED_HOSTS="gin.example.com",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


# a shell line printing the cache, channel layer, broker and database the settings chose
BACKENDS = (
    "from django.conf import settings as s;"
    "print(s.CACHES['default']['BACKEND']);"
    "print(s.CHANNEL_LAYERS['default']['BACKEND']);"
    "print(s.CELERY_BROKER_URL);"
    "print(s.DATABASES['default']['ENGINE'])"
)


def test_redis_url_switches_cache_channel_layer_and_broker():
    result = run_manage(
        "shell",
        "--no-imports",
        "-c",
        BACKENDS,
        REDIS_URL="redis://127.0.0.1:6379/9",
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/ginsite",
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.split()
    assert lines == [
        "django.core.cache.backends.redis.RedisCache",
        "ginsite.layers.SharedPubSubChannelLayer",
        "redis://127.0.0.1:6379/9",
        "django.db.backends.postgresql",
    ]


def test_channel_layer_list_selects_the_list_based_redis_layer():
    result = run_manage(
        "shell",
        "--no-imports",
        "-c",
        "from django.conf import settings as s; print(s.CHANNEL_LAYERS['default']['BACKEND'])",
        REDIS_URL="redis://127.0.0.1:6379/9",
        CHANNEL_LAYER="list",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["channels_redis.core.RedisChannelLayer"]


def test_channel_redis_urls_shard_the_channel_layer():
    code = ("from django.conf import settings as s;"
            "print(*[h['address'] for h in s.CHANNEL_LAYERS['default']['CONFIG']['hosts']])")
    one = run_manage("shell", "--no-imports", "-c", code, REDIS_URL="redis://127.0.0.1:6379/9")
    assert one.returncode == 0, one.stderr
    assert one.stdout.split() == ["redis://127.0.0.1:6379/9"]
    two = run_manage("shell", "--no-imports", "-c", code, REDIS_URL="redis://127.0.0.1:6379/9",
                     CHANNEL_REDIS_URLS="redis://10.0.0.1:6379/0, redis://10.0.0.2:6379/0")
    assert two.returncode == 0, two.stderr
    assert two.stdout.split() == ["redis://10.0.0.1:6379/0", "redis://10.0.0.2:6379/0"]


def test_embedded_default_needs_no_server():
    result = run_manage("shell", "--no-imports", "-c", BACKENDS)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "django.core.cache.backends.locmem.LocMemCache",
        "ginsite.relay.RelayChannelLayer",
        "filesystem://",
        "django.db.backends.sqlite3",
    ]


def test_https_switch_turns_on_redirects_and_secure_cookies():
    code = (
        "from django.conf import settings as s;"
        "print(s.DEBUG, s.SECURE_SSL_REDIRECT, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE,"
        " s.SECURE_HSTS_SECONDS > 0)"
    )
    plain = run_manage("shell", "--no-imports", "-c", code, DEBUG="0")
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.split() == ["False", "False", "False", "False", "False"]
    tls = run_manage("shell", "--no-imports", "-c", code, DEBUG="0", HTTPS="1")
    assert tls.returncode == 0, tls.stderr
    assert tls.stdout.split() == ["False", "True", "True", "True", "True"]


def test_https_redirects_everything_but_the_health_check():
    """A load balancer checks each process over plain http (docs/operations.md): with
    ``HTTPS=1`` every page is sent to https, ``/healthz`` answers itself (200, or 503
    naming what is down), so the check does not fail on a 301."""
    code = (
        "from django.test import Client;"
        "c = Client();"
        "print(*(c.get(p).status_code for p in ('/healthz', '/healthz?x=1', '/', '/play/',"
        " '/healthz/', '/xhealthz')));"
        "print(c.get('/play/').headers['Location'])"
    )
    result = run_manage("shell", "--no-imports", "-c", code, DEBUG="0", HTTPS="1",
                        ALLOWED_HOSTS="testserver")
    assert result.returncode == 0, result.stderr
    health, query, home, play, slash, other = result.stdout.split()[:6]
    assert health in ("200", "503") and query in ("200", "503")
    assert home == play == slash == other == "301"
    assert result.stdout.split()[6:] == ["https://testserver/play/"]


@pytest.mark.skipif(not os.environ.get("DATABASE_URL"), reason="needs PostgreSQL (DATABASE_URL)")
def test_db_pool_serves_queries_and_discards_dead_connections():
    """DB_POOL turns on psycopg's pool: queries work through it, and connections that died
    (here: terminated by the server, as in a PostgreSQL restart) are discarded when handed
    out instead of failing the next request."""
    code = "\n".join([
        "import os",
        "import psycopg",
        "from django.db import connection",
        "connection.ensure_connection()",
        "connection.close()  # back to the pool",
        "pool = connection.pool",
        "with pool.connection() as a, pool.connection() as b:",
        "    pids = [a.info.backend_pid, b.info.backend_pid]",
        "with psycopg.connect(os.environ['DATABASE_URL'], autocommit=True) as admin:",
        "    for pid in pids:",
        "        admin.execute('SELECT pg_terminate_backend(%s)', [pid])",
        "with connection.cursor() as cursor:",
        "    cursor.execute('SELECT pg_backend_pid()')",
        "    pid = cursor.fetchone()[0]",
        "print(pool.max_size, pid not in pids)",
    ])
    result = run_manage("shell", "--no-imports", "-c", code,
                        DATABASE_URL=os.environ["DATABASE_URL"], DB_POOL="2")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["2", "True"]


@pytest.mark.parametrize("value, expected", [
    ("0.05,0.15", (0.05, 0.15)), (" 1 , 2 ", (1.0, 2.0)), ("0,0", (0.0, 0.0)),
])
def test_seconds_range_reads_low_and_high(monkeypatch, value, expected):
    from ginsite.settings.env import env_seconds_range

    monkeypatch.setenv("GAMES_BOT_DELAY", value)
    assert env_seconds_range("GAMES_BOT_DELAY", (0.6, 1.5)) == expected
    monkeypatch.delenv("GAMES_BOT_DELAY")
    assert env_seconds_range("GAMES_BOT_DELAY", (0.6, 1.5)) == (0.6, 1.5)


@pytest.mark.parametrize("value", ["1", "1,2,3", "a,b", "2,1", "-1,1", "nan,1", "0,inf", "0,61"])
def test_seconds_range_refuses_anything_else_by_name(monkeypatch, value):
    from django.core.exceptions import ImproperlyConfigured

    from ginsite.settings.env import env_seconds_range

    monkeypatch.setenv("GAMES_BOT_DELAY", value)
    with pytest.raises(ImproperlyConfigured, match="GAMES_BOT_DELAY must be two numbers"):
        env_seconds_range("GAMES_BOT_DELAY", (0.6, 1.5))


def test_bot_delay_from_the_environment_reaches_the_games_settings():
    shown = run_manage("shell", "-c", "from games import conf; print(conf.get('BOT_DELAY'))",
                       GAMES_BOT_DELAY="0.05,0.15")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip().endswith("(0.05, 0.15)")
    refused = run_manage("check", GAMES_BOT_DELAY="fast")
    assert refused.returncode != 0
    assert "GAMES_BOT_DELAY must be two numbers" in refused.stderr


def test_each_test_worker_has_its_own_folders_redis_database_and_prefixes(tmp_path):
    """scripts/test.sh runs a pytest-xdist worker per core: the second one (gw1), on a
    Redis at database 5, takes database 6, its own var folder and its own cache and channel
    prefixes (ginsite/settings/test.py), so one worker's cache.clear() (a FLUSHDB) never
    reaches the other's broker queue or rate limits."""
    show = ("from django.conf import settings as s;"
            "print(s.CACHES['default']['LOCATION']);"
            "print(s.CACHES['default']['KEY_PREFIX']);"
            "print(s.CHANNEL_LAYERS['default']['CONFIG']['prefix']);"
            "print(s.CELERY_BROKER_URL);"
            "print(s.MEDIA_ROOT)")

    def settings_of(worker, fails=False):
        env = {k: v for k, v in os.environ.items()
               if k not in {"DATABASE_URL", "CHANNEL_LAYER", "GINSITE_TEST_WORKER",
                            "PYTEST_XDIST_WORKER", "CELERY_BROKER_URL"}}
        env.update(DJANGO_SETTINGS_MODULE="ginsite.settings.test",
                   GINSITE_VAR_DIR=str(tmp_path), REDIS_URL="redis://127.0.0.1:6379/5",
                   CACHE_KEY_PREFIX="ci", CHANNEL_PREFIX="asgi-ci")
        if worker:
            env["PYTEST_XDIST_WORKER"] = worker
        result = subprocess.run([sys.executable, "manage.py", "shell", "--no-imports", "-c",
                                 show], cwd=ROOT, env=env, capture_output=True, text=True,
                                timeout=120)
        if fails:
            assert result.returncode != 0
            return result.stderr.strip().splitlines()[-1]
        assert result.returncode == 0, result.stderr
        return result.stdout.split()

    assert settings_of("gw1") == [
        "redis://127.0.0.1:6379/6", "ci-gw1", "asgi-ci-gw1", "redis://127.0.0.1:6379/6",
        str(tmp_path / "test-gw1" / "test-media")]
    assert settings_of("gw0")[:4] == ["redis://127.0.0.1:6379/5", "ci-gw0", "asgi-ci-gw0",
                                      "redis://127.0.0.1:6379/5"]
    # a twelfth worker from database 5 would need database 16, which Redis has not: said at
    # once, not as a failure of every test that touches the cache (scripts/test.sh runs 8)
    assert "test worker gw11 would use Redis database 16" in settings_of("gw11", fails=True)
    # outside xdist: the environment's own
    assert settings_of("") == ["redis://127.0.0.1:6379/5", "ci", "asgi-ci",
                               "redis://127.0.0.1:6379/5", str(tmp_path / "test-media")]


def test_the_workers_eta_timer_looks_often_enough_for_a_computers_pause():
    """A computer's move is a task with a countdown of 0.3-1.5 s: with Celery's default
    (the ETA timer sleeping up to 1 s), one queued while it slept ran up to half a second
    late on the embedded broker, the moves after a computer's draw about 1 s apart whatever
    their pause (an outside audit; bench/broker_pickup.py --gap 0.55 --countdown 0.5: 515 ms
    late at most with 1 s, 41 ms with 0.1)."""
    from ginsite.celery import app

    assert app.conf.worker_timer_precision <= 0.1
