"""Access to claimscope's HTTP servers (the MCP server over HTTP, the web app): which interfaces are
local, the access token a server on any other interface requires, and the bearer-token check.

One token for both servers: from CLAIMSCOPE_MCP_TOKEN, or generated and printed at start.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import secrets
from typing import Any

from claimscope.tools.errors import InputError

TOKEN_ENV = "CLAIMSCOPE_MCP_TOKEN"
MIN_TOKEN_CHARS = 16


def is_loopback(host: str) -> bool:
    """True for an interface only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name other than localhost may resolve to anything


def access_token(host: str, *, generate: bool = False, service: str = "MCP") -> tuple[str | None, bool]:
    """The token HTTP clients must send, and whether it was generated now.

    From CLAIMSCOPE_MCP_TOKEN, or generated with `generate`; required on a non-loopback interface
    (InputError if there is none), optional on loopback (checked when given)."""
    token = os.environ.get(TOKEN_ENV, "").strip()
    if token:
        if len(token) < MIN_TOKEN_CHARS:
            raise InputError(f"{TOKEN_ENV} is too short ({len(token)} characters): use at least {MIN_TOKEN_CHARS}, "
                             "e.g. from `python -c 'import secrets; print(secrets.token_urlsafe(32))'`.")
        return token, False
    if generate:
        return secrets.token_urlsafe(32), True
    if not is_loopback(host):
        raise InputError(
            f"serving {service} on {host} lets other machines in, so it needs an access token: set {TOKEN_ENV} to a "
            "secret of 16+ characters, or pass --generate-token to have one made and printed; clients send it "
            "as the header 'Authorization: Bearer TOKEN'. Or keep the default --host 127.0.0.1."
        )
    return None, False


class BearerAuth:
    """ASGI middleware: every HTTP request must carry 'Authorization: Bearer <token>' (compared in
    constant time); anything else is answered 401 before it reaches the MCP server."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") in ("http", "websocket"):
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self._expected):
                body = b'{"error": "unauthorized: send the header Authorization: Bearer <token>"}'
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"www-authenticate", b'Bearer realm="claimscope"'),
                                        (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
