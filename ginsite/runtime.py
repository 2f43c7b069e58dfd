"""Process tuning shared by the long-running servers (Daphne, Celery workers)."""
import gc


def settle_gc() -> None:
    """Move everything loaded at start-up (Django, the apps, the engine's tables) out of the
    garbage collector's reach and collect young objects less often.

    A full collection walks every tracked object: with the start-up objects included it
    paused Daphne and the Celery worker every few seconds under load (figures in
    docs/operations.md, "Measured figures"), and each pause stalls every table on the
    process. Frozen objects are never scanned; what play allocates is short-lived and still
    collected.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 20, 20)



_web_process = False


def mark_web_process() -> None:
    """Called by ``ginsite.asgi``: this process serves the site (HTTP and WebSockets)."""
    global _web_process
    _web_process = True


def is_web_process() -> bool:
    return _web_process


# Status codes the site answers that Twisted's table of reason phrases lacks: Daphne writes the
# status line from that table, so a rate limit went out as "HTTP/1.1 429 Unknown Status".
MISSING_REASONS = {429: b"Too Many Requests"}


def name_statuses() -> None:
    """Called by ``ginsite.asgi`` (the web process): Twisted's reason phrases completed."""
    try:
        from twisted.web import http
    except ImportError:  # not under Daphne
        return
    for code, phrase in MISSING_REASONS.items():
        http.RESPONSES.setdefault(code, phrase)
