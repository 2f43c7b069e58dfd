from celery import shared_task
from django.contrib.sessions.models import Session
from django.utils import timezone


@shared_task(name="accounts.clear_expired_sessions")
def clear_expired_sessions() -> int:
    """Delete expired sessions (safe to run twice)."""
    deleted, _ = Session.objects.filter(expire_date__lt=timezone.now()).delete()
    return deleted
