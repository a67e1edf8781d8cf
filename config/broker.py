"""The filesystem broker of the embedded default, with messages that appear whole.

kombu's filesystem transport creates a message file under its final name and then
writes it: a worker listing the queue folder in between moves the file away and reads
it empty, and the JSON error stops that worker for good. Here a message is written under
a name no worker reads and renamed into place, which is atomic within the folder.
"""

import os
import uuid
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        # kombu's name (time first: workers take messages in name order).
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        # Workers read only names of the form <stamp>.<queue>.msg; this is not one.
        partial = os.path.join(self.data_folder_out, f".{name}.part")
        try:
            with open(partial, "wb") as handle:
                handle.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel
