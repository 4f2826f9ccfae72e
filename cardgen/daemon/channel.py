"""The messages between the ``cardgen`` executable and the daemon (see :mod:`cardgen.daemon`):
each a 4-byte length and that much JSON, an object; the request carries the executable's
standard streams as file descriptors."""

from __future__ import annotations

import json
import os
import socket
import struct
from typing import Any

#: No message is longer (a request holds the environment: a few kilobytes).
MAX_MESSAGE = 4 * 1024 * 1024


class ProtocolError(Exception):
    """A message that is not what the other side of the socket should send."""


class Channel:
    """Messages over a connected Unix socket: a 4-byte length, then that much JSON (an
    object). Bytes read past one message are kept for the next."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._buf = bytearray()

    def send(self, message: dict[str, Any], fds: list[int] | None = None) -> None:
        """Send ``message``, and with it the file descriptors ``fds``."""
        data = json.dumps(message, ensure_ascii=False).encode()
        if len(data) > MAX_MESSAGE:
            raise ProtocolError(f"a message of {len(data)} bytes is over the limit of {MAX_MESSAGE}")
        framed = struct.pack(">I", len(data)) + data
        if fds:
            sent = socket.send_fds(self.sock, [framed], fds)
            framed = framed[sent:]
        if framed:
            self.sock.sendall(framed)

    def receive(self, max_fds: int = 0) -> tuple[dict[str, Any] | None, list[int]]:
        """The next message (None when the other side closed without starting one) and the
        file descriptors that came with its first bytes (at most ``max_fds``; the caller
        owns them)."""
        fds: list[int] = []
        try:
            while len(self._buf) < 4:
                if not self._read(fds, max_fds):
                    if self._buf:
                        raise ProtocolError("a message ends early")
                    return None, fds
            (size,) = struct.unpack(">I", bytes(self._buf[:4]))
            if size > MAX_MESSAGE:
                raise ProtocolError(f"a message of {size} bytes is over the limit of {MAX_MESSAGE}")
            while len(self._buf) < 4 + size:
                if not self._read(fds, max_fds):
                    raise ProtocolError("a message ends early")
            data, self._buf = bytes(self._buf[4:4 + size]), self._buf[4 + size:]
            message = json.loads(data)
            if not isinstance(message, dict):
                raise ProtocolError("a message must be a JSON object")
        except BaseException:
            for fd in fds:
                os.close(fd)
            raise
        return message, fds

    def _read(self, fds: list[int], max_fds: int) -> bool:
        if max_fds and not fds:
            data, got, _flags, _addr = socket.recv_fds(self.sock, 65536, max_fds)
            fds.extend(got)
        else:
            data = self.sock.recv(65536)
        self._buf += data
        return bool(data)
