"""Numbers that tell things apart and nothing more: keyed by the site's secret, the same for
the same row, in no order, so that they count nothing (a chat line's row id let a public
table's chatter count the lines said at private tables: a privacy audit)."""
from __future__ import annotations

import hashlib
import hmac

from django.conf import settings


def keyed_number(kind: str, n: int) -> int:
    """Row ``n`` of ``kind``'s public number: 48 bits, a safe integer in JSON."""
    digest = hmac.new(settings.SECRET_KEY.encode(), f"{kind}:{n}".encode(),
                      hashlib.sha256).digest()
    return int.from_bytes(digest[:6], "big")
