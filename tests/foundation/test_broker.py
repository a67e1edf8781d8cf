"""The embedded default's filesystem broker: a worker never reads a message half written
(kombu's own transport let a worker take a file still being written, read it empty and
stop on the JSON error)."""

import sys

import pytest
from kombu import Connection
from kombu.utils.json import dumps

from config.broker import Transport


def connection(folder, transport=Transport):
    return Connection(
        "filesystem://",
        transport=transport,
        transport_options={"data_folder_in": str(folder), "data_folder_out": str(folder)},
    )


def test_a_message_being_written_is_not_seen_and_arrives_whole(tmp_path, monkeypatch):
    seen = []

    def look_while_writing(payload):
        # Called by the producer between creating the message's file and writing it.
        with connection(tmp_path) as worker:
            queue = worker.SimpleQueue("probe")
            with pytest.raises(queue.Empty):
                queue.get(block=False)
            seen.append(True)
        return dumps(payload)

    monkeypatch.setattr(sys.modules[Transport.__module__], "dumps", look_while_writing)
    with connection(tmp_path) as producer:
        producer.SimpleQueue("probe").put({"n": 1})
    monkeypatch.undo()
    assert seen == [True]
    with connection(tmp_path) as worker:
        message = worker.SimpleQueue("probe").get(timeout=5)
        assert message.payload == {"n": 1}
        message.ack()


@pytest.mark.sqlite_only(reason="the filesystem broker is the embedded default's")
def test_settings_use_it_for_the_filesystem_broker():
    from config.celery import app

    assert isinstance(app.connection_for_write().transport, Transport)
