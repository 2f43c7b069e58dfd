"""The Celery application.

The broker comes from settings: Redis when ``REDIS_URL`` is set, otherwise kombu's
filesystem transport in ``var/celery-broker`` so that a worker and beat run on a fresh
machine with no server at all.
"""
import os

from celery import Celery

from ginsite.localfiles import prepare

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginsite.settings")


def survive_broker_restarts() -> None:
    """Keep the worker alive when its Redis broker goes away (kombu 5.7 and earlier).

    After a broken broker connection, Celery collects the connection, which detaches the
    transport from its client, and closes it. Two things then reach Redis through the detached
    transport and fail with an ``AttributeError`` (``'NoneType' object has no attribute
    'hostname'`` or ``'client'``): putting back the unacknowledged tasks while the channel
    closes, and acknowledging a task that was running when the connection broke. An
    ``AttributeError`` is not a connection error, so the worker stopped with "Unrecoverable
    error" instead of reconnecting. Here a channel without a connected transport raises
    Redis's ``ConnectionError``, which Celery handles as it handles every other broker
    failure: it logs it and reconnects. The tasks concerned stay in Redis's unacked set, which
    delivers them again after the visibility timeout (they are idempotent); a Redis that
    restarted empty has lost them, and the games sweep plays a computer's late move
    (docs/operations.md)."""
    from kombu.transport import redis as kombu_redis
    from redis.exceptions import ConnectionError as RedisConnectionError

    original = kombu_redis.Channel._connparams
    if getattr(original, "survives_broker_restarts", False):
        return

    def _connparams(self, asynchronous=False):
        transport = self.connection
        if transport is None or getattr(transport, "client", None) is None:
            raise RedisConnectionError("the broker connection was closed")
        return original(self, asynchronous=asynchronous)

    _connparams.survives_broker_restarts = True
    kombu_redis.Channel._connparams = _connparams


survive_broker_restarts()

app = Celery("ginsite")


@app.on_configure.connect
def prepare_local_files(sender, **kwargs):
    """A worker or beat makes the folders and the secret key the settings read before it
    loads them (ginsite/localfiles.py)."""
    prepare()


app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
