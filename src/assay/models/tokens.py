"""How many tokens a text is to one model: its server's count where the server has a
tokenizer endpoint, a conservative estimate everywhere else.

- ``TokenCounter`` estimates: the larger of ``ceil(chars / 4)`` and the word-based estimate
  of ``reading.tokens`` (which errs high on English prose); no request is made.
- ``ServerTokenizer`` asks llama.cpp's llama-server: ``POST {root}/tokenize`` with
  ``{"content": text}`` answers ``{"tokens": [...]}`` (exact, the model's own vocabulary),
  and ``GET {root}/props`` tells the context each slot has (``default_generation_settings
  .n_ctx``). ``root`` is the base URL without its ``/v1``. A server that does not answer
  either (an older build, another server) is estimated, once said, for the rest of the run.

Counts are cached per text: a fitted prompt is measured again by the typed call.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from assay.models.guard import check_model_requests_allowed
from assay.reading.tokens import estimate_tokens

if TYPE_CHECKING:
    import httpx2

_CACHED_TEXTS = 256


def estimated_tokens(text: str) -> int:
    """A conservative count without a tokenizer (see the module docstring)."""
    return max(math.ceil(len(text) / 4), estimate_tokens(text))


class TokenCounter:
    """Counts by estimate; subclasses ask a server."""

    exact = False
    """Whether counts are the model's own (a server's tokenizer)."""

    async def count(self, text: str) -> int:
        return estimated_tokens(text)

    async def server_window(self) -> int | None:
        """The context the server gives one request, when it says; None otherwise."""
        return None

    async def aclose(self) -> None:
        """Release connections; the estimate holds none."""


class ServerTokenizer(TokenCounter):
    """llama-server's ``/tokenize`` and ``/props`` (see the module docstring)."""

    def __init__(
        self, base_url: str, http: httpx2.AsyncClient | None = None, *, key: str | None = None
    ) -> None:
        """``key`` is the model's own key for this same server (llama-server started with
        ``--api-key`` guards /tokenize too); it goes nowhere else."""
        self.root = base_url.rstrip("/").removesuffix("/v1")
        self._headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._http = http
        self._own_http = http is None
        self._cache: OrderedDict[str, int] = OrderedDict()
        self._working = True
        self._window: int | bool | None = False  # False: not asked yet
        self.exact = True

    def _client(self) -> httpx2.AsyncClient:
        if self._http is None:
            import httpx2

            self._http = httpx2.AsyncClient(trust_env=False, timeout=10.0)
        return self._http

    async def count(self, text: str) -> int:
        if text in self._cache:
            self._cache.move_to_end(text)
            return self._cache[text]
        counted = await self._ask_count(text) if self._working else None
        if counted is None:
            self._working = False
            self.exact = False
            return estimated_tokens(text)
        self._cache[text] = counted
        if len(self._cache) > _CACHED_TEXTS:
            self._cache.popitem(last=False)
        return counted

    async def _ask_count(self, text: str) -> int | None:
        body = await self._ask("POST", "/tokenize", {"content": text})
        tokens = body.get("tokens") if isinstance(body, dict) else None
        return len(tokens) if isinstance(tokens, list) else None

    async def server_window(self) -> int | None:
        if self._window is False:
            body = await self._ask("GET", "/props", None)
            settings = body.get("default_generation_settings") if isinstance(body, dict) else None
            n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
            self._window = n_ctx if isinstance(n_ctx, int) and n_ctx > 0 else None
        return self._window if isinstance(self._window, int) else None

    async def _ask(self, method: str, path: str, payload: Any) -> Any:
        import httpx2

        check_model_requests_allowed(f"{self.root}{path}")
        try:
            response = await self._client().request(
                method, f"{self.root}{path}", json=payload, headers=self._headers
            )
            response.raise_for_status()
            return response.json()
        except (httpx2.HTTPError, ValueError):
            return None

    async def aclose(self) -> None:
        if self._own_http and self._http is not None:
            await self._http.aclose()
            self._http = None
