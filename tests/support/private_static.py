"""Settings for a test server whose built files (``generated/static``: the offline engine
package) are a copy of its own, in ``GINSITE_TEST_GENERATED_STATIC``: a test may then change
one (a new build, for a new service worker) without any other server of the suite seeing it.
With DEBUG the service worker's version follows these files' times (games/offline.py)."""
import os
from pathlib import Path

from ginsite.settings import *  # noqa: F401,F403
from ginsite.settings import BASE_DIR

OFFLINE_GENERATED_STATIC = Path(os.environ["GINSITE_TEST_GENERATED_STATIC"])
STATICFILES_DIRS = [BASE_DIR / "static", OFFLINE_GENERATED_STATIC]
