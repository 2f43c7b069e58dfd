"""Production-mode settings, checked in fresh processes (settings are read at start-up)."""
import os
import secrets
import subprocess
import sys
from pathlib import Path

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


def test_production_refuses_default_secret_key():
    result = run_manage("check", DEBUG="0", SECRET_KEY="", ALLOWED_HOSTS="gin.example.com")
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_check_deploy_is_clean_in_production_mode():
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(64),
        ALLOWED_HOSTS="gin.example.com",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_redis_url_switches_cache_channel_layer_and_broker():
    code = (
        "from django.conf import settings as s;"
        "print(s.CACHES['default']['BACKEND']);"
        "print(s.CHANNEL_LAYERS['default']['BACKEND']);"
        "print(s.CELERY_BROKER_URL);"
        "print(s.DATABASES['default']['ENGINE'])"
    )
    result = run_manage(
        "shell",
        "--no-imports",
        "-c",
        code,
        REDIS_URL="redis://127.0.0.1:6379/9",
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/ginsite",
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.split()
    assert lines == [
        "django.core.cache.backends.redis.RedisCache",
        "channels_redis.pubsub.RedisPubSubChannelLayer",
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


def test_embedded_default_needs_no_server():
    code = (
        "from django.conf import settings as s;"
        "print(s.CACHES['default']['BACKEND']);"
        "print(s.CHANNEL_LAYERS['default']['BACKEND']);"
        "print(s.CELERY_BROKER_URL);"
        "print(s.DATABASES['default']['ENGINE'])"
    )
    result = run_manage("shell", "--no-imports", "-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "django.core.cache.backends.locmem.LocMemCache",
        "ginsite.relay.RelayChannelLayer",
        "filesystem://",
        "django.db.backends.sqlite3",
    ]
