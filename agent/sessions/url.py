"""The shape of a PostgreSQL sessions URL and its password masked for messages. Settings check
`sessions.url` with it, so it imports nothing of claimscope."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

POSTGRES_SCHEMES = ("postgresql", "postgres")


def mask_url(url: str) -> str:
    """`url` with its password replaced by ***, for messages and logs."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return re.sub(r"//([^:/@]*):[^@]*@", r"//\1:***@", url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = netloc[0].split(":", 1)[0]
    return parts._replace(netloc=f"{user}:***@{netloc[1]}").geturl()


def url_problem(url: str) -> str | None:
    """What is wrong with `url` as a PostgreSQL URL (a sentence starting with the masked URL), or
    None when nothing is."""
    try:
        parts = urlsplit(url.strip())
        _ = parts.port  # a non-numeric port raises here
    except ValueError as exc:
        return (f"{mask_url(url)!r} is not a valid URL ({exc}); write it as "
                "postgresql://USER:PASSWORD@HOST:5432/DATABASE.")
    if parts.scheme not in POSTGRES_SCHEMES:
        return (f"{mask_url(url)!r} must be a PostgreSQL URL (postgresql://USER:PASSWORD@HOST:5432/DATABASE); "
                "leave it unset to keep sessions in SQLite under data_dir.")
    return None
