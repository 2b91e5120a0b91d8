"""Languages: --language (and the question's own), non-Latin text, the report and the model
told in the run's language; over a German and a Chinese corpus the tests write themselves."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.cli import app
from assay.config import load_settings
from assay.errors import ConfigError
from assay.lab import Lab, serve_lab
from assay.language import (
    ENGLISH,
    codes,
    language,
    parse_language,
    report_text,
    using_language,
    writing_instruction,
)
from assay.language.cues import english_cues
from assay.language.detect import detect_language
from assay.text import content_words, raw_words, split_sentences

GERMAN = {
    "Halvorsen-Leuchtturm": [
        "Der Halvorsen-Leuchtturm steht auf dem nördlichen Kap der Insel Skarvik.",
        "Der Bau des Halvorsen-Leuchtturms wurde im Jahr 1874 abgeschlossen.",
        "Sein Turm ist 41 Meter hoch und aus grauem Granit gebaut.",
        "Die Lampe brannte bis 1902 Walöl und wurde dann auf Petroleum umgestellt.",
    ],
    "Velmar-Honigbiene": [
        "Die Velmar-Honigbiene ist eine Gebirgsunterart aus dem Hochland von Orsa.",
        "Ein gesundes Volk zählt im Hochsommer etwa 40.000 Arbeiterinnen.",
        "Die Unterart wurde 1931 von dem Entomologen Lars Brekke erstmals beschrieben.",
    ],
    "Gezeitenkraftwerk Tarn": [
        "Das Gezeitenkraftwerk Tarn erzeugt Strom aus den Gezeiten der Tarn-Mündung.",
        "Das Kraftwerk wurde 2016 nach sechs Jahren Bauzeit eröffnet.",
        "Seine 24 Turbinen leisten zusammen 320 Megawatt.",
    ],
}
CHINESE = {
    "哈尔沃森灯塔": [
        "哈尔沃森灯塔位于斯卡维克岛的北角。",
        "哈尔沃森灯塔于1874年建成。",
        "灯塔高41米，由当地的灰色花岗岩建造。",
    ],
    "维尔马蜜蜂": [
        "维尔马蜜蜂是生活在奥尔萨高原的一个山地亚种。",
        "这个亚种由昆虫学家拉尔斯·布雷克于1931年首次描述。",
    ],
    "塔恩潮汐电站": [
        "塔恩潮汐电站利用塔恩河口的潮汐发电。",
        "电站的24台涡轮机总装机容量为320兆瓦。",
    ],
}
GERMAN_QUESTION = "Wie hoch ist der Halvorsen-Leuchtturm?"
CHINESE_QUESTION = "哈尔沃森灯塔是哪一年建成的？"


def write_corpus(directory: Path, topics: dict[str, list[str]]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for number, (title, facts) in enumerate(topics.items()):
        text = f"# {title}\n\n" + " ".join(facts) + "\n"
        (directory / f"{number}.md").write_text(text, encoding="utf-8")
    return directory


@pytest.fixture(scope="module")
def german_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    corpus = write_corpus(tmp_path_factory.mktemp("de"), GERMAN)
    with serve_lab(corpus, sites=2, faults=False, first_address="127.0.0.60") as lab:
        yield lab


@pytest.fixture(scope="module")
def chinese_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    corpus = write_corpus(tmp_path_factory.mktemp("zh"), CHINESE)
    with serve_lab(corpus, sites=2, faults=False, first_address="127.0.0.70") as lab:
        yield lab


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("How tall is the Halvorsen Lighthouse?", "en"),
        (GERMAN_QUESTION, "de"),
        ("Was ist die Hauptstadt von Frankreich?", "de"),
        ("Quelle est la hauteur du phare de Halvorsen ?", "fr"),
        ("¿Qué altura tiene el faro Halvorsen?", "es"),
        (CHINESE_QUESTION, "zh"),
        ("ハルヴォルセン灯台の高さは？", "ja"),
        ("Who directed Die Hard?", None),  # one English word, one German: no clear winner
        ("Where is Los Angeles?", "en"),
        ("Halvorsen Lighthouse", None),  # names say nothing about a language
        # English sentences with a German-looking word or name (Climate-FEVER, PopQA)
        ("Man-made gases play only a minor part in the warming.", "en"),
        ("What is Ayşe Yıldırımoğlu's occupation?", "en"),
    ],
)
def test_the_questions_language_is_detected(text: str, expected: str | None) -> None:
    assert detect_language(text) == expected


def test_a_language_is_named_by_code_tag_or_name_and_an_unknown_one_is_refused() -> None:
    assert [parse_language(v) for v in ("de", "DE-at", "German", "Deutsch", "zh_CN")] == [
        "de", "de", "de", "de", "zh"
    ]  # fmt: skip
    with pytest.raises(ValueError, match=r"no language 'klingon': assay writes in en \(English\)"):
        parse_language("klingon")
    with pytest.raises(ConfigError, match="invalid setting language"):
        load_settings(language="tlh")


def test_every_language_has_every_text_english_has() -> None:
    english = language(ENGLISH)
    for code in codes():
        table = language(code)
        assert set(table.report) == set(english.report), code
        assert set(table.query_words) == set(english.query_words), code
        with using_language(code):
            assert report_text("claims_from", claims=3, sources=2)  # every placeholder fills


def test_cjk_text_is_character_pairs_and_its_sentences_end_without_a_space() -> None:
    assert raw_words("灯塔高41米") == ["灯塔", "塔高", "41", "米"]
    assert content_words("哈尔沃森灯塔") == ["哈尔", "尔沃", "沃森", "森灯", "灯塔"]
    assert raw_words("Halvorsen tower") == ["Halvorsen", "tower"]  # Latin text as before
    text = "哈尔沃森灯塔位于斯卡维克岛的北角。哈尔沃森灯塔于1874年建成！ It stands."
    assert [s.text for s in split_sentences(text)] == [
        "哈尔沃森灯塔位于斯卡维克岛的北角。", "哈尔沃森灯塔于1874年建成！", "It stands."
    ]  # fmt: skip
    assert all(text[s.start : s.end] == s.text for s in split_sentences(text))  # exact offsets


def test_a_runs_language_drops_its_function_words_and_reads_its_question_words() -> None:
    from assay.reading.names import names_in
    from assay.reading.questions import shape_of

    sentence = "Der Turm ist 41 Meter hoch und aus Granit gebaut."
    assert "der" in content_words(sentence)  # English's stop words alone keep it
    assert shape_of(GERMAN_QUESTION).kind == "what"
    with using_language("de"):
        assert content_words(sentence) == ["turm", "meter", "hoch", "granit", "gebaut"]
        assert names_in("Der Bau des Turms") == ["Bau", "Turms"]
        shape = shape_of(GERMAN_QUESTION)
        assert (shape.kind, shape.direction) == ("number", "measure")
        assert shape_of("Wann wurde der Halvorsen-Leuchtturm gebaut?").kind == "when"
    assert english_cues(GERMAN_QUESTION) == GERMAN_QUESTION  # an English run: as it is
    with using_language("zh"):
        assert shape_of(CHINESE_QUESTION).kind == "when"


def test_the_planners_queries_widen_in_the_runs_language() -> None:
    from assay.engines.extractive.planner import expand_queries

    assert any(q.endswith(" evidence") for q in expand_queries("Halvorsen-Leuchtturm", count=6))
    with using_language("de"):
        queries = expand_queries("Halvorsen-Leuchtturm", count=6)
    assert any(q.endswith(" Belege") for q in queries)
    assert not any(q.endswith((" evidence", " disputed")) for q in queries)


def test_the_index_finds_cjk_text_by_character_pairs() -> None:
    from assay.gather.documents import Document
    from assay.gather.index import LocalIndex

    docs = [Document(doc_id=f"d{n}", title=t, text=" ".join(f)) for n, (t, f) in
            enumerate(CHINESE.items())]  # fmt: skip
    with LocalIndex(":memory:") as index:
        index.add_documents(docs)
        hits = index.search(CHINESE_QUESTION, limit=3)
        assert hits and hits[0].title == "哈尔沃森灯塔"
        assert len(hits[0].snippet) <= 241
        assert [h.title for h in index.search("潮汐电站", limit=3)] == ["塔恩潮汐电站"]
        assert index.search("Halvorsen", limit=3) == []  # Latin queries: FTS5 as before


def test_every_model_call_is_told_the_runs_language() -> None:
    from pydantic import BaseModel

    from assay.models import typed_call
    from assay.models.testing import ScriptedModel

    class Said(BaseModel):
        text: str

    async def call() -> str:
        model = ScriptedModel([{"text": "41 Meter"}])
        await typed_call(model, system="Answer.", prompt="?", output=Said, timeout=5)
        return model.requests[0].system

    assert "German" not in asyncio.run(call()) and writing_instruction() == ""
    with using_language("de"):
        system = asyncio.run(call())
    assert system.startswith("Answer.")
    assert "Write every text meant for the reader" in system and "German (Deutsch)" in system
    assert "Never translate a quote" in system


def test_the_report_reads_back_in_any_language() -> None:
    from assay.evaluation.citations import body_lines, statement_text
    from assay.report.claims_report import render_claims_report
    from assay.report.reading import report_answer

    with using_language("de"):
        report = render_claims_report(
            GERMAN_QUESTION, [], [], written_by="assay",
            answer="41 — gestützt auf: Sein Turm ist 41 Meter hoch. (claim_001: weak)",
        )  # fmt: skip
    assert "## Zusammenfassung" in report and "## Quellen" in report
    assert "**Antwort:** 41" in report and "Geschrieben von assay." in report
    assert report_answer(report) == "41"
    answer_line = next(line for line in report.splitlines() if line.startswith("**Antwort:**"))
    assert statement_text(answer_line) == "Sein Turm ist 41 Meter hoch."
    assert "## Quellen" in report.splitlines() and "## Quellen" not in body_lines(report)


def _run_dir(home: Path) -> Path:
    [run] = list((home / "runs").iterdir())
    return run


def _log(run: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (run / "run.log.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("flag", [["--language", "de"], []])
def test_a_german_run_finds_the_right_page_and_answers_in_german_without_a_model(
    flag: list[str], german_lab: Lab, isolated_home: Path
) -> None:
    result = CliRunner().invoke(
        app, ["research", GERMAN_QUESTION, *flag, "--search", "searxng", "--searxng-url",
              german_lab.sites[0], "--allow-host", "127.0.0.0/8", "--quiet", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    run = _run_dir(isolated_home)
    info = json.loads((run / "run.json").read_text())
    assert info["language"] == "de" and info["config"]["language"] == (flag[1] if flag else None)
    report = (run / "report.md").read_text()
    assert "## Zusammenfassung" in report and "## Quellen" in report
    assert "**Antwort:** 41 —" in report  # "Wie hoch": a measure, from the right sentence
    records = [json.loads(line) for line in (run / "sources.jsonl").read_text().splitlines()]
    assert records[0]["title"] == "Halvorsen-Leuchtturm"
    claims = [json.loads(line) for line in (run / "claims.jsonl").read_text().splitlines()]
    snapshot = (run / records[0]["snapshot"]).read_text()
    assert any(c["evidence"][0]["quote"] == GERMAN["Halvorsen-Leuchtturm"][2] for c in claims)
    assert all(
        c["evidence"][0]["quote"] in snapshot for c in claims if c["sourceIds"] == ["src_01"]
    )
    searched = [e for e in _log(run) if e["type"] == "tool.search"]
    # a question is searched as its look-ups; any widening word is German, never English
    english = ("criticism", "evidence", "disputed", "overview", "explained", "facts")
    queries = [q for e in searched for q in e["data"]["queries"]]  # type: ignore[index]
    assert queries and not any(q.endswith(english) for q in queries)
    warned = [e["data"] for e in _log(run) if e["type"] == "warning"]
    assert any(w["code"] == "language" and "trained on English" in w["message"] for w in warned)  # type: ignore[index]


def test_a_chinese_run_finds_the_right_page_and_writes_its_report_in_chinese(
    chinese_lab: Lab, isolated_home: Path
) -> None:
    from assay.protocols.research import research_async

    settings = load_settings(
        search="searxng", searxng_url=chinese_lab.sites[0], allow_hosts=["127.0.0.0/8"]
    )
    result = asyncio.run(research_async(CHINESE_QUESTION, settings=settings))
    run = Path(result.run_dir)
    records = [json.loads(line) for line in (run / "sources.jsonl").read_text().splitlines()]
    assert records[0]["title"] == "哈尔沃森灯塔"
    report = (run / "report.md").read_text()
    assert "## 摘要" in report and "## 来源" in report
    assert "哈尔沃森灯塔于1874年建成。" in report  # quoted verbatim, as the page has it
    assert json.loads((run / "run.json").read_text())["language"] == "zh"


def test_an_english_run_is_as_it_was(isolated_home: Path, lab_research_run: Path) -> None:
    info = json.loads((lab_research_run / "run.json").read_text())
    assert info["language"] == "en"
    report = (lab_research_run / "report.md").read_text()
    assert "## Executive summary" in report and "## Sources" in report
    assert not [e for e in _log(lab_research_run) if e["type"] == "warning"
                and e["data"]["code"] == "language"]  # type: ignore[index]  # fmt: skip


def test_the_api_takes_a_language_and_refuses_an_unknown_one(
    german_lab: Lab, isolated_home: Path
) -> None:
    from assay.web.app import ServerConfig, create_app
    from tests.web.test_api import api_client, run_async, wait_done

    settings = load_settings(
        home=isolated_home, search="searxng", searxng_url=german_lab.sites[0],
        allow_hosts=["127.0.0.0/8"],
    )  # fmt: skip
    app_ = create_app(ServerConfig(settings))

    async def scenario() -> None:
        async with api_client(app_) as client:
            refused = await client.post(
                "/api/v1/runs", json={"topic": GERMAN_QUESTION, "language": "klingon"}
            )
            assert refused.status_code == 422, refused.text
            assert "no language 'klingon'" in refused.text
            started = await client.post(
                "/api/v1/runs", json={"topic": "Halvorsen-Leuchtturm Turm", "language": "de"}
            )
            assert started.status_code == 202, started.text
            await wait_done(client, started.json()["id"])
            page = await client.get("/")
            assert '<select id="language" name="language">' in page.text
            assert '<option value="de">Deutsch (de)</option>' in page.text

    run_async(scenario)
    run = _run_dir(isolated_home)
    info = json.loads((run / "run.json").read_text())
    assert info["language"] == "de" and info["config"]["language"] == "de"
    assert "## Zusammenfassung" in (run / "report.md").read_text()


def test_an_answers_flag_and_dropped_sentences_are_said_in_the_runs_language() -> None:
    from assay.answers.flags import AnswerFlag, agree
    from assay.reading.questions import shape_of

    flag = AnswerFlag("extractive:number", "41", "")
    assert flag.line().startswith("Flag: the rule extractive:number reads the claims as")
    with using_language("de"):
        line = flag.line()
        assert line.startswith("Hinweis: die Regel") and "keine Antwort" in line
        assert detect_language(line) != "en"
    # two answers that are the same number agree: no flag for "41" against "41"
    assert agree(shape_of("Wie hoch ist der Turm?"), "41", "41")
    assert not agree(shape_of("How tall is the tower?"), "41", "42")
