"""What one successful fetch returns; kept apart so the cache and the client share it."""

from __future__ import annotations

import codecs
import contextlib
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class FetchedPage:
    """One page as fetched: the bytes, what they are, and how they were reached.

    ``body`` is decoded from any Content-Encoding and at most ``max_bytes`` long;
    ``truncated`` says the source was longer and was cut there (such pages are not cached).
    ``redirects`` lists every URL redirected to, in order, ending at ``final_url``.
    """

    url: str
    final_url: str
    status: int
    content_type: str
    charset: str | None
    body: bytes
    headers: Mapping[str, str]
    from_cache: bool
    redirects: tuple[str, ...]
    truncated: bool = False

    def text(self) -> str:
        """The body as text: the declared charset when Python knows it, else UTF-8.

        Undecodable bytes become U+FFFD rather than failing: a page that is mostly readable
        is still a source.
        """
        encoding = "utf-8"
        if self.charset:
            with contextlib.suppress(LookupError):
                encoding = codecs.lookup(self.charset).name
        return self.body.decode(encoding, errors="replace")
