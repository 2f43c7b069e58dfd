"""kombu's filesystem transport (the broker of the embedded default) with atomic writes.

kombu writes a message by creating its file under its final name and then writing into it;
a consumer that lists the folder in between moves the empty file away, reads nothing and
stops with "Unrecoverable error: JSONDecodeError" (the message lost, the worker restarted by
``scripts/run.sh``). It happened several times a minute when beat's tournaments sweep queued
tasks while the worker was taking others. Here a message is written under a name no consumer
takes (a leading dot and a ``.part`` ending) and renamed to its final name once complete: a
rename within one folder is atomic, so a consumer sees a message whole or not at all.
"""
from __future__ import annotations

import os
import uuid
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:
        """Put ``payload`` on ``queue``: written whole under a hidden name, then renamed."""
        name = f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = os.path.join(self.data_folder_out, f".{name}.part")
        try:
            with open(partial, "wb", buffering=0) as f:
                f.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            try:
                os.remove(partial)
            except OSError:
                pass
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel

    @property
    def default_connection_params(self) -> dict[str, Any]:
        # A folder has no host: kombu's default of "localhost" made it warn "No hostname was
        # supplied" on the run command's console each time a process connected.
        return {"port": self.default_port}
