"""Code mode as a person would use it (issue 25): over assay's own source, the question's
concepts are grepped in the code's spellings, a todo is kept, the modules that define them
are read, and the answer and findings cite ``file:line`` lines that say what is quoted."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

import assay
from assay.cli import app
from assay.config import load_settings
from assay.protocols.research import research_async
from assay.protocols.research.codemap import CodeMap, line_of, prose_view
from assay.protocols.research.concepts import code_question, concept_share, concepts
from assay.protocols.research.workspace import Workspace
from assay.store.jsonl import read_jsonl

runner = CliRunner()
SOURCE = Path(assay.__file__).resolve().parent.parent  # the src/ folder this test runs on
RATE_LIMIT = "how is the per-domain rate limit enforced?"
_CITED = re.compile(r"`(assay/[\w/]+\.py):(\d+)`")


def _workspace_events(run_dir: str) -> list[dict[str, Any]]:
    log = read_jsonl(Path(run_dir) / "run.log.jsonl").records
    return [e["data"] for e in log if e["type"] == "tool.workspace"]


def test_code_mode_reads_the_pacing_and_robots_modules_and_cites_file_lines(
    isolated_home: Path,
) -> None:
    result = asyncio.run(
        research_async(RATE_LIMIT, settings=load_settings(home=isolated_home), workspace=SOURCE)
    )
    calls = _workspace_events(result.run_dir)
    tools = [c["tool"] for c in calls]
    assert tools[:3] == ["listWorkspaceDir", "todo", "grepWorkspace"]
    greps = [c["argument"] for c in calls if c["tool"] == "grepWorkspace"]
    spelled = {s for g in greps for s in g.split("|")}
    assert {"per_domain", "pacing", "limiter"} <= spelled  # the code's words, not the question's
    assert not spelled & {"happen", "site's", "how", "is", "the"}
    todos = [c["argument"] for c in calls if c["tool"] == "todo"]
    assert todos[0].count("[ ]") >= 3 and todos[-1].count("[x]") == todos[0].count("[ ]")
    listed = [c["argument"] for c in calls if c["tool"] == "listWorkspaceDir"]
    assert "assay/gather/fetch" in listed  # the folder of the best match, listed
    read = [s["url"].removeprefix("workspace://") for s in result.sources]
    assert read[0] == "assay/gather/fetch/pacing.py"
    assert "assay/gather/fetch/robots.py" in read
    report = Path(result.report or "").read_text()
    answer = next(line for line in report.splitlines() if line.startswith("**Answer:**"))
    assert "No direct answer" not in answer and _CITED.search(answer), answer
    for path, line in _CITED.findall(report.split("## Where in the code")[0]):
        assert path in read  # a finding cites a file it read, at a line inside it
        assert 1 <= int(line) <= len((SOURCE / path).read_text().splitlines())
    where = report.split("## Where in the code", 1)[1].split("## Sources")[0]
    assert "`assay/gather/fetch/pacing.py:" in where and "class Pacer" in where
    for path, line, shown in re.findall(r"`(assay/[\w/]+\.py):(\d+)` `([^`]*)`", where):
        source_line = (SOURCE / path).read_text().splitlines()[int(line) - 1]
        assert shown.replace("›", ">") in source_line.strip().replace("`", "'")
    verified = runner.invoke(app, ["verify", result.run_id, "--home", str(isolated_home)])
    assert verified.exit_code == 0, verified.output


def test_a_findings_line_is_where_its_quote_starts(isolated_home: Path) -> None:
    result = asyncio.run(
        research_async(RATE_LIMIT, settings=load_settings(home=isolated_home), workspace=SOURCE)
    )
    report = Path(result.report or "").read_text()
    findings = report.split("## Findings", 1)[1].split("## Where in the code")[0]
    bullets = [b for b in findings.splitlines() if b.startswith("- ") and "`assay/" in b]
    assert len(bullets) >= 3
    for bullet in bullets:
        match = _CITED.search(bullet)
        if match is None:
            continue
        path, line = match.group(1), int(match.group(2))
        lines = (SOURCE / path).read_text().splitlines()
        opening = bullet[2:].split()[:6]  # the claim's first words start on its cited line
        assert opening[0] in lines[line - 1], bullet
        assert " ".join(opening) in " ".join(" ".join(lines[line - 1 : line + 2]).split())


def test_concepts_are_spelled_as_code_spells_them() -> None:
    found = {c.name: c for c in concepts(RATE_LIMIT)}
    assert set(found) == {"per domain", "rate limit", "enforced"}
    assert {"per_domain", "per-domain", "perdomain"} <= set(found["per domain"].spellings)
    assert {"rate_limit", "ratelimit", "pacing", "limiter"} <= set(found["rate limit"].spellings)
    assert found["enforced"].spellings == ("enforc",)  # the stem finds enforce, enforcing
    assert found["enforced"].weight < found["rate limit"].weight  # a predicate, not a thing
    names = [c.name for c in concepts("What happens when a site's robots.txt cannot be fetched?")]
    assert names == ["site", "robots.txt", "fetched"]  # "happens" says nowhere to look
    assert "pacing" in code_question(RATE_LIMIT) and code_question("zebra") == "zebra"


def test_a_concepts_share_says_how_much_of_the_question_a_sentence_speaks_of() -> None:
    found = concepts(RATE_LIMIT)
    assert concept_share(found, "Per-domain pacing and the global concurrency cap.") >= 0.8
    assert concept_share(found, "The garden has roses.") == 0.0


def test_files_that_define_a_concept_rank_above_files_that_mention_it(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "net").mkdir()
    (tmp_path / "docs" / "notes.md").write_text("We mention retry and backoff once.\n")
    (tmp_path / "net" / "retry.py").write_text(
        '"""Retry with backoff."""\n\n\nclass Backoff:\n    attempts = 3\n'
    )
    (tmp_path / "net" / "other.py").write_text("x = 1  # unrelated\n")
    workspace = Workspace.open(tmp_path)
    code = CodeMap(len(workspace.files()))
    for concept in concepts("where is the retry backoff computed?"):
        code.add(concept.pattern, workspace.grep(concept.pattern), concept.weight)
    assert code.ranked()[0] == "net/retry.py"
    (_, hit), *_ = code.definitions(["net/retry.py"])
    assert (hit.path, hit.line, hit.text) == ("net/retry.py", 4, "class Backoff:")


def test_a_python_files_prose_is_its_docstrings_and_comments_at_their_offsets() -> None:
    text = '"""Pace each host."""\nimport os\n\n\ndef f():\n    """Wait here."""\n    return 1\n'
    prose = prose_view("m.py", text)
    assert len(prose) == len(text) and "import" not in prose and "return" not in prose
    start = prose.index("Wait here.")
    assert text[start : start + 10] == "Wait here." and line_of(text, "Wait here.", start) == 6
    assert prose_view("notes.md", text) == text


def test_a_short_spelling_is_a_word_or_a_names_part_of_its_own(tmp_path: Path) -> None:
    """ "key" is in ``api_key``, ``apiKey`` and ``keys``; not in ``keywords`` or ``monkey``."""
    for name, line in [("a.py", "api_key = 1"), ("b.py", "apiKey = 1"), ("c.py", "keys = []"),
                       ("d.py", "keywords = []"), ("e.py", "monkey = 2")]:  # fmt: skip
        (tmp_path / name).write_text(line + "\n")
    found = {hit.path for hit in Workspace.open(tmp_path).grep("key")}
    assert found == {"a.py", "b.py", "c.py"}


def test_api_keys_are_looked_for_where_the_code_masks_them(isolated_home: Path) -> None:
    result = asyncio.run(
        research_async(
            "how are API keys kept out of the snapshots?",
            settings=load_settings(home=isolated_home), workspace=SOURCE,
        )
    )  # fmt: skip
    read = [s["url"].removeprefix("workspace://") for s in result.sources]
    assert "assay/redact.py" in read, read
