"""The listening socket of ``assay serve`` (and ``mcp --transport http``), bound first.

Binding first means a port in use (or an address that is not this machine's) is one line
and an exit code of its own before the server prints an address, let alone one with its
token, that nothing will answer on; it also lets ``--port 0`` print the port it got.
"""

from __future__ import annotations

import errno
import socket
from typing import Any

from assay.errors import BadInputError, UnavailableError, UserError


def shown_address(host: str, port: int) -> str:
    """``http://HOST:PORT/`` with an IPv6 address in brackets."""
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/"


def bind_listener(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` and listening; UnavailableError when the port
    is taken, BadInputError when the address cannot be served on from here."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET  # as uvicorn chooses
    try:
        address = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM)[0][4]
    except socket.gaierror as exc:
        raise BadInputError(f"--host {host!r} is not an address here: {exc.strerror}") from None
    try:
        return socket.create_server(address[:2], family=family)
    except OSError as exc:
        raise _refused(exc, host, port) from None


def serve_on(listener: socket.socket, app: Any) -> None:
    """Serve the ASGI ``app`` on ``listener`` until Ctrl-C or SIGTERM, then close it."""
    import uvicorn

    with listener:
        uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[listener])


def _refused(exc: OSError, host: str, port: int) -> UserError:
    where = shown_address(host, port)
    if exc.errno == errno.EADDRINUSE:
        return UnavailableError(
            f"cannot serve on {where}: the port is in use (another server is listening "
            "there); stop it, or pick another port with --port"
        )
    if exc.errno == errno.EADDRNOTAVAIL:
        return BadInputError(f"cannot serve on {where}: {host} is not an address of this machine")
    if exc.errno == errno.EACCES:
        return BadInputError(
            f"cannot serve on {where}: this user may not bind port {port} (pick one above 1023)"
        )
    return BadInputError(f"cannot serve on {where}: {exc.strerror or exc}")
