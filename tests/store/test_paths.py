"""Paths derived from URLs and topics never leave the run directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import UnsafePathError
from assay.store.paths import safe_child, slugify, url_slug
from assay.store.runs import RunStore
from assay.store.sources import SourceLedger

HOSTILE = [
    "../../etc/passwd",
    "%2e%2e/%2e%2e/etc/passwd",
    "..\\..\\windows\\system32",
    "/etc/passwd",
    "http://evil.test/" + "a" * 5000,
    "http://evil.test/a\x00b",
    "CON",
    "con.txt",
    "NUL",
    "",
    "....",
    "ÆØÅ 漢字 💥",
]


@pytest.mark.parametrize("name", HOSTILE)
def test_slugs_are_safe(name: str) -> None:
    slug = slugify(name)
    assert slug and len(slug) <= 60
    assert set(slug) <= set("abcdefghijklmnopqrstuvwxyz0123456789-")
    assert slug not in {"con", "nul", "prn", "aux"}


@pytest.mark.parametrize("url", HOSTILE)
def test_snapshot_paths_stay_inside_the_run(tmp_path: Path, url: str) -> None:
    run = RunStore(tmp_path, fsync=False).create(url or "empty", "research", {})
    assert run.dir.resolve().is_relative_to((tmp_path / "runs").resolve())
    record = SourceLedger(run.dir, fsync=False).add(
        url=url,
        final_url=url,
        title=None,
        text="t",
        content_type="text/plain",
        accessed_at="2026-11-29T00:00:00Z",
    )
    path = (run.dir / record.snapshot).resolve()
    assert path.is_file()
    assert path.is_relative_to((run.dir / "snapshots").resolve())


def test_case_collisions_get_distinct_snapshots(tmp_path: Path) -> None:
    run = RunStore(tmp_path, fsync=False).create("case", "research", {})
    ledger = SourceLedger(run.dir, fsync=False)
    names = {
        ledger.add(
            url=u,
            final_url=u,
            title=None,
            text=u,
            content_type="text/plain",
            accessed_at="2026-11-29T00:00:00Z",
        ).snapshot.lower()
        for u in ("http://a.test/Page", "http://a.test/page", "http://A.test/PAGE")
    }
    assert len(names) == 3


@pytest.mark.parametrize("part", ["..", ".", "", "a/b", "a\\b", "x\x00y"])
def test_safe_child_refuses_escaping_components(tmp_path: Path, part: str) -> None:
    with pytest.raises(UnsafePathError):
        safe_child(tmp_path, part)


def test_safe_child_refuses_symlink_escape(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "link").symlink_to(tmp_path)
    with pytest.raises(UnsafePathError):
        safe_child(tmp_path / "root", "link")


def test_long_inputs_stay_distinct() -> None:
    a, b = "x" * 5000 + "a", "x" * 5000 + "b"
    assert slugify(a) != slugify(b)
    assert url_slug("http://h.test/" + a) != url_slug("http://h.test/" + b)
