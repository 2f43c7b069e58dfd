"""The Celery application.

The broker comes from settings: Redis when ``REDIS_URL`` is set, otherwise kombu's
filesystem transport in ``var/celery-broker`` so that a worker and beat run on a fresh
machine with no server at all.
"""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginsite.settings")

app = Celery("ginsite")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
