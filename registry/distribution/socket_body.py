"""A blob upload's body read straight from gunicorn's socket, into reused buffers.

gunicorn's `wsgi.input` copies every byte about three times on its way through its
buffers (the unreader's, the reader's, the body's): for a blob that is a tenth of the
upload's CPU, as much as writing it to disk. When the request is a gunicorn one with a
Content-Length body nothing has read yet, the bytes gunicorn already holds are taken from
its buffer and the rest is received with `recv_into`. gunicorn's own count of the body
bytes left (`LengthReader.length`) is kept exact all along, so whatever is not read here
(an error midway) is drained by gunicorn as usual and the connection stays in step.

Anything else (another server, a chunked body, a gunicorn whose internals differ) reads
`wsgi.input` as before.
"""

import io

# The reader hands out views of these buffers in turn: a view must stay valid while the
# next chunk is received (the previous one is still being hashed and written).
BUFFERS = 3


def take_over(request, length: int | None, chunk_size: int):
    """A `.read(size)` source of the body from gunicorn's socket; None when not possible."""
    if not length:
        return None
    return _GunicornSocketBody.take_over(request.META, length, chunk_size)


class _GunicornSocketBody:
    def __init__(self, sock, reader, unreader, chunk_size: int):
        self._sock = sock
        self._reader = reader
        self._unreader = unreader
        # Made on first use, no larger than the body: a small blob or a refused chunk
        # costs no megabytes.
        self._buffer_size = min(chunk_size, reader.length)
        self._buffers: list[memoryview] = []
        self._turn = 0

    @classmethod
    def take_over(cls, environ: dict, length: int, chunk_size: int):
        sock = environ.get("gunicorn.socket")
        body = environ.get("wsgi.input")
        reader = getattr(body, "reader", None)
        unreader = getattr(reader, "unreader", None)
        untouched = (
            sock is not None
            and type(reader).__name__ == "LengthReader"
            and getattr(unreader, "sock", None) is sock
            and getattr(reader, "length", None) == length
            and isinstance(getattr(body, "buf", None), io.BytesIO)
            and body.buf.tell() == 0
            and isinstance(getattr(unreader, "buf", None), io.BytesIO)
        )
        return cls(sock, reader, unreader, chunk_size) if untouched else None

    def read(self, size: int):
        size = min(size, self._reader.length)
        if size <= 0:
            return b""
        held = self._take_buffered(size)
        if held:
            return held
        view = self._next_buffer()[:size]
        received = 0
        while received < len(view):
            count = self._sock.recv_into(view[received:])
            if not count:
                break
            received += count
            self._reader.length -= count
        return view[:received]

    def _next_buffer(self) -> memoryview:
        if len(self._buffers) < BUFFERS:
            self._buffers.append(memoryview(bytearray(self._buffer_size)))
        buffer = self._buffers[self._turn % BUFFERS]
        self._turn += 1
        return buffer

    def _take_buffered(self, size: int) -> bytes:
        """Up to `size` of the bytes gunicorn read past the headers (body, or beyond)."""
        held = self._unreader.buf.getvalue()
        if not held:
            return b""
        taken = held[:size]
        self._unreader.buf = io.BytesIO()
        self._unreader.buf.write(held[size:])
        self._reader.length -= len(taken)
        return taken
