"""Origins: registrable domains from the Public Suffix List, derived from the fetched URL."""

from __future__ import annotations

import pytest

from assay.claims.independence import group_origins
from assay.store.sources import SourceRecord

TEXTS = [
    "The first page tells of harbours, ships and the winter storms of the northern coast.",
    "A second text about mountain trails, alpine huts and the birds that nest above them.",
]


def source(number: int, url: str, *, domain: str | None = None) -> SourceRecord:
    return SourceRecord(
        id=f"src_{number:02d}",
        url=url,
        final_url=url,
        title=None,
        snapshot=f"snapshots/{number}.md",
        accessed_at="2026-11-30T00:00:00Z",
        sha256="0" * 64,
        domain=domain if domain is not None else url.split("/")[2].split(":")[0],
        content_type="text/html",
    )


@pytest.mark.parametrize(
    ("first", "second", "origins"),
    [
        ("https://foo.org.es/a", "https://bar.org.es/b", 2),
        ("https://a.example.co.uk/a", "https://b.example.co.uk/b", 1),
        ("http://127.0.0.2:8800/a", "http://127.0.0.3:8800/b", 2),
        ("http://127.0.0.2:8800/a", "http://127.0.0.2:8800/b", 1),
        ("https://alice.github.io/a", "https://bob.github.io/b", 2),
    ],
    ids=["org.es-pair", "co.uk-subdomains", "lab-addresses", "one-lab-site", "github-pages"],
)
def test_origins_follow_the_public_suffix_list(first: str, second: str, origins: int) -> None:
    records = [source(1, first), source(2, second)]
    grouped = group_origins(records, {r.id: t for r, t in zip(records, TEXTS, strict=True)})
    assert grouped.count(["src_01", "src_02"]) == origins


def test_a_recorded_domain_field_is_ignored() -> None:
    """Relabelling ``domain`` in sources.jsonl cannot split one site into two origins."""
    records = [
        source(1, "https://news.example.com/a"),
        source(2, "https://www.example.com/b", domain="independent.org"),
    ]
    grouped = group_origins(records, {r.id: t for r, t in zip(records, TEXTS, strict=True)})
    assert grouped.count(["src_01", "src_02"]) == 1
    assert grouped.of["src_02"] == "example.com"


def test_the_final_url_decides_after_a_redirect() -> None:
    redirected = source(2, "https://short.link/x").model_copy(
        update={"final_url": "https://www.example.com/story"}
    )
    records = [source(1, "https://example.com/a"), redirected]
    grouped = group_origins(records, {r.id: t for r, t in zip(records, TEXTS, strict=True)})
    assert grouped.count(["src_01", "src_02"]) == 1
