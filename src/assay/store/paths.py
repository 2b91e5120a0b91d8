"""Names derived from URLs and topics, made safe to use as files inside a run directory.

A slug is ``[a-z0-9-]`` only, never empty, never a Windows device name, and bounded in
length (a hash of the full input keeps long inputs distinct). ``safe_child`` is the one
gate every derived path passes: it refuses anything that would land outside its root.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from pathlib import Path
from urllib.parse import unquote, urlsplit

from assay.errors import UnsafePathError

MAX_SLUG_LENGTH = 60
_NON_SLUG = re.compile(r"[^a-z0-9]+")
_WINDOWS_DEVICES = frozenset(
    {"con", "prn", "aux", "nul"}
    | {f"com{i}" for i in range(1, 10)}
    | {f"lpt{i}" for i in range(1, 10)}
)


def slugify(text: str, *, max_length: int = MAX_SLUG_LENGTH, fallback: str = "item") -> str:
    """Lower-case ASCII words joined by hyphens; long inputs end in a short hash."""
    normalised = unicodedata.normalize("NFKD", unquote(text.replace("\x00", " ")))
    ascii_text = normalised.encode("ascii", "ignore").decode("ascii").lower()
    slug = _NON_SLUG.sub("-", ascii_text).strip("-") or fallback
    if slug in _WINDOWS_DEVICES:
        slug = f"{slug}-{fallback}"
    if len(slug) > max_length:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        slug = f"{slug[: max_length - 9].rstrip('-')}-{digest}"
    return slug


def url_slug(url: str) -> str:
    """A readable slug for a URL: host and path, without the scheme."""
    parts = urlsplit(url)
    readable = f"{parts.hostname or ''} {parts.path} {parts.query}"
    return slugify(readable, fallback="page")


def safe_child(root: Path, *parts: str) -> Path:
    """``root / parts`` if it stays inside ``root``; otherwise UnsafePathError."""
    for part in parts:
        if not part or "\x00" in part or part in {".", ".."} or "/" in part or "\\" in part:
            raise UnsafePathError(f"refusing unsafe path component {part[:80]!r}")
    resolved_root = root.resolve()
    candidate = resolved_root.joinpath(*parts).resolve()
    if not candidate.is_relative_to(resolved_root) or candidate == resolved_root:
        raise UnsafePathError(f"refusing a path outside {root}: {'/'.join(parts)[:80]!r}")
    return candidate


def unique_name(directory: Path, stem: str, suffix: str) -> str:
    """``stem + suffix``, or ``stem-2 + suffix``... so that no existing file is reused.

    A name is taken when it exists, in its case or lower-cased, so two names that differ
    only in case never collide on a case-insensitive file system (assay's own slugs are
    lower-case). Each candidate is looked up, not the whole directory listed, so adding
    the n-th snapshot does not cost n.
    """
    name = f"{stem}{suffix}"
    counter = 2
    while (directory / name).exists() or (directory / name.lower()).exists():
        name = f"{stem}-{counter}{suffix}"
        counter += 1
    return name
