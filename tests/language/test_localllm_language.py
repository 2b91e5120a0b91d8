"""A German run with the REAL local model (marked ``localllm``; skipped, saying why, when the
server from ../shared/tools/local-llm is not running): its answer and prose in German."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.config import load_settings
from assay.lab import Lab, serve_lab
from assay.language.detect import detect_language
from tests.language.test_language import GERMAN, GERMAN_QUESTION, write_corpus
from tests.localllm_fixtures import BASE_URL, MODEL_NAME

pytestmark = [pytest.mark.localllm, pytest.mark.usefixtures("allow_requests")]


@pytest.fixture(scope="module")
def german_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    corpus = write_corpus(tmp_path_factory.mktemp("de"), GERMAN)
    with serve_lab(corpus, sites=2, faults=False, first_address="127.0.0.80") as lab:
        yield lab


def test_a_german_run_with_the_local_model_answers_in_german(
    german_lab: Lab, isolated_home: Path
) -> None:
    from assay.protocols.research import research_async

    settings = load_settings(
        search="searxng", searxng_url=german_lab.sites[0], allow_hosts=["127.0.0.0/8"],
        model=f"openai:{MODEL_NAME}", base_url=BASE_URL, budget_time=900,
    )  # fmt: skip
    result = asyncio.run(research_async(GERMAN_QUESTION, settings=settings))
    report = Path(result.run_dir, "report.md").read_text()
    assert "## Zusammenfassung" in report and "**Antwort:**" in report
    assert "41" in (result.answer or ""), result.answer
    summary = report.split("## Zusammenfassung", 1)[1].split("## ", 1)[0]
    fixed = ("**Antwort:**", "- ")  # the answer line and the claims: not the model's prose
    prose = [line for line in summary.splitlines()
             if line and not line.startswith(fixed) and "Aussagen aus" not in line]  # fmt: skip
    assert not [line for line in prose if detect_language(line) == "en"], prose
