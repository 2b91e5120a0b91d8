"""Fixtures for tests against the REAL local model (../shared/tools/local-llm).

The address is read at import time (``ASSAY_LOCAL_LLM_BASE_URL``, else ``$ASSAY_DEV_CACHE``
or ``~/.cache/assay-dev`` ``server.port``), before the suite's autouse fixture strips
``ASSAY_*`` variables. Tests using ``local_llm`` skip, saying why, when the server does not
answer ``GET {base}/models`` within 1 s. Only a loopback address is ever used.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
import pytest

import assay.models

DEFAULT_MODEL = "qwen2.5-coder-1.5b-instruct"


def _discover() -> tuple[str, str]:
    base = os.environ.get("ASSAY_LOCAL_LLM_BASE_URL")
    if not base:
        cache = Path(os.environ.get("ASSAY_DEV_CACHE") or Path.home() / ".cache" / "assay-dev")
        port_file = cache / "server.port"
        port = port_file.read_text().strip() if port_file.is_file() else "8765"
        base = f"http://127.0.0.1:{port}/v1"
    return base.rstrip("/"), os.environ.get("ASSAY_LOCAL_LLM_MODEL") or DEFAULT_MODEL


BASE_URL, MODEL_NAME = _discover()


@pytest.fixture(scope="module")
def local_llm() -> str:
    host = urlsplit(BASE_URL).hostname or ""
    if host not in ("127.0.0.1", "localhost", "::1"):
        pytest.skip(f"local LLM address {BASE_URL} is not loopback")
    try:
        response = httpx2.get(f"{BASE_URL}/models", timeout=1.0, trust_env=False)
        response.raise_for_status()
    except httpx2.HTTPError as exc:
        pytest.skip(
            f"local LLM not reachable at {BASE_URL} ({type(exc).__name__}); "
            "start it with ../shared/tools/local-llm start"
        )
    return BASE_URL


@pytest.fixture
def allow_requests(local_llm: str) -> Iterator[None]:
    with assay.models.model_requests_allowed(True):
        yield
