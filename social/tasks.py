from celery import shared_task

from .presence import presence_sweep


@shared_task(name="social.presence_sweep", ignore_result=True)
def presence_sweep_task():
    """Announce users whose notification sockets all lapsed without a disconnect."""
    presence_sweep()
