"""What keeps the web app safe by default: the access token (required off loopback), protection of
every POST against cross-site requests, a bound on request bodies, and response headers that keep
scripts to the app's own file.

The access token's policy (where it comes from, when it is required) is agent/access.py's, shared
with the MCP server; a browser cannot send a bearer header on a link, so here the token may also
arrive once as `?token=` in the printed URL and is then kept in an HttpOnly, same-site cookie.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qsl, urlencode

from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request

from claimscope.agent.access import is_loopback

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

TOKEN_COOKIE = "claimscope_token"
CSRF_FIELD = "csrf"
# Scripts only from the app's own static file (an injected <script> or on* attribute cannot run);
# inline styles stay allowed for the report's consensus bars.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
       "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    # same-origin, not no-referrer: with no-referrer browsers send "Origin: null" on form posts.
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
]


def new_csrf_token() -> str:
    """The per-process secret every form carries (a page of another site cannot read it)."""
    return secrets.token_urlsafe(32)


async def checked_form(request: Request, csrf_token: str, **limits: Any) -> FormData:
    """The POST's form, after the cross-site checks: an Origin header (browsers send it on every
    POST) must name this server, and the form must carry the process's CSRF token."""
    origin = request.headers.get("origin")
    if origin is not None:
        host = request.headers.get("host", "")
        if origin in ("null", "") or origin.split("://", 1)[-1] != host:
            raise HTTPException(403, "cross-site request refused (its Origin is not this server).")
    form = await request.form(**limits)
    given = form.get(CSRF_FIELD)
    if not isinstance(given, str) or not hmac.compare_digest(given.encode(), csrf_token.encode()):
        await form.close()
        raise HTTPException(403, "the form is missing its security token; reload the page and try again.")
    return form


def _send_plain(status: int, text: str, extra: list[tuple[bytes, bytes]] | None = None) -> list[Message]:
    body = text.encode()
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
               *HEADERS, *(extra or [])]
    return [{"type": "http.response.start", "status": status, "headers": headers},
            {"type": "http.response.body", "body": body}]


class Guard:
    """ASGI middleware in front of every route: access token (when set), request-body bound, and
    the security headers on every response."""

    def __init__(self, app: Any, *, token: str | None, max_body: int) -> None:
        self.app = app
        self.token = token
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        if self.token is not None:
            verdict = self._authorize(scope)
            if verdict is not None:
                for message in verdict:
                    await send(message)
                return
        elif not is_loopback(_hostname(headers.get(b"host", b"").decode("latin-1"))):
            # Without a token only this machine may use the app: a page of another site whose name
            # was re-pointed at 127.0.0.1 (DNS rebinding) arrives with its own name as Host.
            for message in _send_plain(403, "this server answers only to 127.0.0.1 / localhost; open "
                                            "http://127.0.0.1:PORT/, or serve with an access token.\n"):
                await send(message)
            return
        length = headers.get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_body:
            for message in _send_plain(413, f"request too large (limit {self.max_body // 1_000_000} MB).\n"):
                await send(message)
            return

        received = 0

        async def bounded_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    raise HTTPException(413, f"request too large (limit {self.max_body // 1_000_000} MB).")
            return message

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        await self.app(scope, bounded_receive, send_with_headers)

    def _authorize(self, scope: Scope) -> list[Message] | None:
        """None when the request carries the token; else the response to send."""
        assert self.token is not None
        expected = self.token.encode()
        headers = dict(scope.get("headers") or [])
        bearer = headers.get(b"authorization", b"")
        if bearer.startswith(b"Bearer ") and hmac.compare_digest(bearer[7:], expected):
            return None
        cookies = _cookies(headers.get(b"cookie", b"").decode("latin-1"))
        if hmac.compare_digest(cookies.get(TOKEN_COOKIE, "").encode(), expected):
            return None
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        given = next((v for k, v in query if k == "token"), None)
        if given is not None and scope.get("method") == "GET" and hmac.compare_digest(given.encode(), expected):
            # Keep the token in a cookie and drop it from the address bar (and from history).
            rest = urlencode([(k, v) for k, v in query if k != "token"])
            location = scope.get("path", "/") + (f"?{rest}" if rest else "")
            cookie = f"{TOKEN_COOKIE}={self.token}; HttpOnly; SameSite=Strict; Path=/"
            messages = _send_plain(303, "signed in\n", [(b"location", location.encode()),
                                                        (b"set-cookie", cookie.encode())])
            return messages
        return _send_plain(401, "unauthorized: open the URL `claimscope serve` printed (it carries the access "
                                "token), or send the header 'Authorization: Bearer TOKEN'.\n")


def _hostname(host: str) -> str:
    """The name part of a Host header ('127.0.0.1:8000' -> '127.0.0.1', '[::1]:80' -> '::1')."""
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.rpartition(":")[0] if host.count(":") == 1 else host


def _cookies(header: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in header.split(";"):
        name, _, value = part.strip().partition("=")
        if name:
            out[name] = value
    return out
