"""``assay index add | search | stats | remove`` through the root app."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from assay.cli import app

runner = CliRunner()


def _docs(root: Path) -> Path:
    (root / "sub").mkdir(parents=True)
    (root / "bees.md").write_text("# Honeybees\n\nBees make honey.\n", encoding="utf-8")
    (root / "sub" / "tides.txt").write_text("Tides\n\nThe moon pulls.\n", encoding="utf-8")
    (root / "sub" / "broken.json").write_text("[", encoding="utf-8")
    return root


def test_add_search_stats_remove_in_the_given_home(tmp_path: Path, isolated_home: Path) -> None:
    home = tmp_path / "elsewhere"
    docs = _docs(tmp_path / "docs")
    added = runner.invoke(app, ["index", "add", str(docs), "--home", str(home)])
    assert added.exit_code == 0, added.output
    assert "indexed 2 documents from 2 files" in added.stdout
    assert "skipped" in added.stderr and "broken.json" in added.stderr
    assert (home / "index.sqlite").is_file() and not (isolated_home / "index.sqlite").exists()

    found = runner.invoke(app, ["index", "search", "honey", "--json", "--home", str(home)])
    assert found.exit_code == 0, found.output
    hits = json.loads(found.stdout)
    assert hits[0]["title"] == "Honeybees" and hits[0]["url"].startswith("index://")
    words = runner.invoke(
        app, ["index", "search", "honey", "--lexical", "--json", "--home", str(home)]
    )
    assert [h["title"] for h in json.loads(words.stdout)] == ["Honeybees"]

    text = runner.invoke(app, ["index", "search", "moon", "-n", "1", "--home", str(home)])
    assert text.exit_code == 0 and text.stdout.startswith("1. Tides")

    stats = json.loads(runner.invoke(app, ["index", "stats", "--json", "--home", str(home)]).stdout)
    assert stats["documents"] == 2 and stats["sources"] == 2
    assert stats["passages"] == stats["vectors"] == 2

    removed = runner.invoke(app, ["index", "remove", str(docs / "sub"), "--home", str(home)])
    assert removed.exit_code == 0 and "removed 1 documents" in removed.stdout
    gone = runner.invoke(app, ["index", "remove", str(docs / "sub"), "--home", str(home)])
    assert gone.exit_code == 2 and "nothing in the index matches" in gone.stderr


def test_assay_home_from_the_environment(tmp_path: Path, isolated_home: Path) -> None:
    assert runner.invoke(app, ["index", "add", str(_docs(tmp_path / "d"))]).exit_code == 0
    assert (isolated_home / "index.sqlite").is_file()
    stats = runner.invoke(app, ["index", "stats"])
    assert stats.exit_code == 0 and "documents: 2" in stats.stdout


def test_hostile_queries_and_a_missing_index_are_calm(isolated_home: Path) -> None:
    for query in ['"', "AND OR NOT", "NEAR(", "col:x", "*", "x" * 10_000]:
        result = runner.invoke(app, ["index", "search", query, "--json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout) == []
    assert not (isolated_home / "index.sqlite").exists()
    stats = json.loads(runner.invoke(app, ["index", "stats", "--json"]).stdout)
    assert stats["documents"] == 0


def test_missing_path_is_one_line_and_exit_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["index", "add", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert result.stderr.strip().startswith("error: no such file or folder")
    assert "Traceback" not in result.output


MEANING = "sweet food made by insects"  # no word of it is in _docs' files


def test_vectors_later_by_embed_and_search_by_meaning(tmp_path: Path, isolated_home: Path) -> None:
    docs = _docs(tmp_path / "docs")
    added = runner.invoke(app, ["index", "add", str(docs), "--no-vectors"])
    assert added.exit_code == 0 and "vectors made" not in added.stdout
    assert "with a vector" in runner.invoke(app, ["index", "stats"]).stdout

    words_only = runner.invoke(app, ["index", "search", MEANING, "--json"])
    assert json.loads(words_only.stdout) == []
    assert "2 of 2 passages have no vector" in words_only.stderr
    assert "assay index embed" in words_only.stderr

    embedded = runner.invoke(app, ["index", "embed"])
    assert embedded.exit_code == 0, embedded.output
    assert "made 2 passage vectors; 2 of 2 have one" in embedded.stdout
    hybrid = runner.invoke(app, ["index", "search", MEANING, "--json"])
    assert json.loads(hybrid.stdout)[0]["title"] == "Honeybees" and not hybrid.stderr
    lexical = runner.invoke(app, ["index", "search", MEANING, "--lexical", "--json"])
    assert json.loads(lexical.stdout) == []


def test_embed_without_an_index_is_one_line(isolated_home: Path) -> None:
    result = runner.invoke(app, ["index", "embed"])
    assert result.exit_code == 2 and "there is no index" in result.stderr
    assert not (isolated_home / "index.sqlite").exists()
