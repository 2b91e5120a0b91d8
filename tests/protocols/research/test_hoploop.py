"""The hop loop: with a model, each page read names the next search, over the lab.

The scripted model below reads the way a careful small model would: from each page it
draws the fact that bears on the question and names the thing that fact points to as the
next search, and says "answered" once what is known answers the question.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.config import load_settings
from assay.events import Event, HopRead
from assay.gather.documents import Document
from assay.lab import Lab, serve_lab
from assay.models.testing import ScriptedModel
from assay.models.usage import CallUsage, UsageMeter
from assay.protocols.research import ResearchResult, research_async

PAGES = {
    "Orange Creeps": "Orange Creeps is a 2010 novel by Ada Lind. The novel was published by "
    "Blue Lantern Press in 2010. Critics praised its dreamlike style.",
    "Blue Lantern Press": "Blue Lantern Press is an independent printing house in Ohio. It was "
    "started by Mara Quist in 2005. It prints twenty books a year.",
    "Mara Quist": "Mara Quist is an American printer. She grew up in Dayton, where her father "
    "kept a bookshop. She later moved to Columbus.",
    **{
        f"{name} novel": f"The {name} novel was released in {1990 + n} to mixed reviews. Its "
        "author wrote it in a small town over six years."
        for n, name in enumerate(("Green", "Red", "Grey", "White", "Black"))
    },
}
TWO_HOPS = "Who started the company that released the novel Orange Creeps?"
THREE_HOPS = "Where did the person who started the company that released Orange Creeps grow up?"
PLAN = ["Who released the novel Orange Creeps?", "Who started the company that released it?"]
# What a careful reader draws from each page: (fact, the sentence's key words, next search)
READS: dict[str, tuple[str, str, str]] = {
    "Orange Creeps": (
        "The novel Orange Creeps was published by Blue Lantern Press in 2010.",
        "Blue Lantern Press",
        "Blue Lantern Press founder",
    ),
    "Blue Lantern Press": (
        "Blue Lantern Press was started by Mara Quist in 2005.",
        "Mara Quist",
        "Mara Quist childhood",
    ),
    "Mara Quist": ("Mara Quist grew up in Dayton.", "Dayton", ""),
}
ANSWERS = {TWO_HOPS: ("Mara Quist", "Mara Quist"), THREE_HOPS: ("Dayton", "Dayton")}


@pytest.fixture(scope="module")
def press_lab() -> Iterator[Lab]:
    docs = [Document(doc_id=f"p{n}", title=t, text=x) for n, (t, x) in enumerate(PAGES.items())]
    with serve_lab(docs, sites=2, faults=False) as lab:
        yield lab


def numbered(prompt: str) -> dict[int, str]:
    return {int(n): text for n, text in re.findall(r"^\[(\d+)\] (.*)$", prompt, re.M)}


def best_line(lines: dict[int, str], words: str) -> int:
    wanted = set(re.findall(r"\w+", words.lower()))
    return max(lines, key=lambda n: (len(wanted & set(re.findall(r"\w+", lines[n].lower()))), -n))


def reader(
    *,
    answered_when: Callable[[str, str], bool],
    search: Callable[[str, str], str],
    answers: dict[str, tuple[str, str]] = ANSWERS,
) -> Callable[[Any], object]:
    """A scripted model for a whole research run; how it reads pages is given."""

    def script(request: Any) -> object:
        prompt = request.messages[-1].content
        question = prompt.rsplit("QUESTION: ", 1)[-1].split("\n")[0]
        lines = numbered(prompt)
        if "KNOWN:" in prompt and "SENTENCES:" in prompt:
            title = prompt.split("PAGE: ", 1)[1].split("\n")[0]
            fact, key, _ = READS.get(title, ("", "", ""))
            claims = [{"claim": fact, "sentence": best_line(lines, key)}] if fact else []
            done = answered_when(title, question)
            return {
                "claims": claims,
                "answered": done,
                "search": "" if done else search(title, question),
            }
        if "EVIDENCE:" in prompt:
            claim = prompt.rsplit("CLAIM: ", 1)[1].strip()
            return {"label": "SUPPORTS", "sentence": best_line(lines, claim)}
        if "short summary" in request.system:
            return {"sentences": []}
        if prompt.startswith("CLAIMS:"):
            answer, key = answers[question]
            hit = next((n for n, text in lines.items() if key in text), None)
            return {"answer": answer, "claims": [hit]} if hit else {"answer": "", "claims": []}
        if "Plan written: no" in prompt:
            return {
                "action": {
                    "action": "write_plan",
                    "questions": PLAN,
                    "approach": "Follow the hops.",
                }
            }
        if "Searches done: 0" in prompt:
            queries = ["Orange Creeps", "Orange Creeps novel", "novel Orange Creeps released"]
            return {"action": {"action": "web_search", "queries": queries}}
        return {"action": {"action": "finish", "answer": ""}}

    return script


def follows_the_facts(title: str, question: str) -> str:
    return READS.get(title, ("", "", ""))[2]


def run(
    lab: Lab, home: Path, question: str, model: ScriptedModel, **settings: Any
) -> ResearchResult:
    config = load_settings(
        home=home, search="searxng", searxng_url=lab.sites[0], allow_hosts=["127.0.0.0/8"],
        **settings,
    )  # fmt: skip
    return asyncio.run(research_async(question, settings=config, model=model))


def log(result: ResearchResult, kind: str) -> list[dict[str, Any]]:
    lines = (Path(result.run_dir) / "run.log.jsonl").read_text().splitlines()
    return [e["data"] for e in map(json.loads, lines) if e["type"] == kind]


def read_titles(result: ResearchResult) -> list[str]:
    return [str(s["title"]) for s in result.sources]


def test_a_two_hop_question_follows_the_model_to_the_answer_page(
    press_lab: Lab, isolated_home: Path
) -> None:
    model = ScriptedModel(
        reader(
            answered_when=lambda title, _: title == "Blue Lantern Press", search=follows_the_facts
        )
    )
    result = run(press_lab, isolated_home, TWO_HOPS, model)
    assert "Blue Lantern Press" in read_titles(result)
    rounds = log(result, "research.round")
    assert [(r["missing"], r["by"]) for r in rounds] == [("Blue Lantern Press founder", "model")]
    assert rounds[0]["queries"][0] == "Blue Lantern Press founder"
    assert rounds[0]["serves"] == PLAN[1]  # the sub-question the search is for
    (ended,) = log(result, "research.gathered")
    assert ended["answered"] and ended["reason"].startswith("answered after")
    assert ended["pages"] < len(PAGES)  # it stopped reading once answered
    assert result.answer == "Mara Quist"
    (given,) = log(result, "research.answer")
    assert given["method"] == "model:scripted:model" and given["text"] == "Mara Quist"
    assert "round 2 (for: Who started the company" in (Path(result.run_dir) / "plan.md").read_text()


def test_no_rule_replaces_the_models_answer_and_a_disagreement_is_a_flag(
    press_lab: Lab, isolated_home: Path
) -> None:
    # "Ada Lind" is in the passage of the claim it cites (the novel's page), so it passes
    # the check; the extractive rule reads the claims otherwise, and only says so.
    model = ScriptedModel(
        reader(answered_when=lambda title, _: title == "Blue Lantern Press",
               search=follows_the_facts, answers={TWO_HOPS: ("Ada Lind", "Orange Creeps")})
    )  # fmt: skip
    result = run(press_lab, isolated_home, TWO_HOPS, model)
    assert result.answer == "Ada Lind"
    (given,) = log(result, "research.answer")
    assert given["text"] == "Ada Lind" and given["method"] == "model:scripted:model"
    (flag,) = given["flags"]
    assert flag["modelAnswer"] == "Ada Lind" and flag["rule"] == "extractive:who"
    assert flag["ruleAnswer"] and flag["ruleAnswer"] != "Ada Lind"
    report = Path(result.report or "").read_text()
    assert "**Answer:** Ada Lind" in report
    assert f"_Flag: the rule extractive:who reads the claims as “{flag['ruleAnswer']}”" in report


def test_a_three_hop_question_follows_two_bridges(press_lab: Lab, isolated_home: Path) -> None:
    model = ScriptedModel(
        reader(answered_when=lambda title, _: title == "Mara Quist", search=follows_the_facts)
    )
    result = run(press_lab, isolated_home, THREE_HOPS, model)
    titles = read_titles(result)
    assert "Blue Lantern Press" in titles and "Mara Quist" in titles
    rounds = log(result, "research.round")
    assert [r["missing"] for r in rounds] == ["Blue Lantern Press founder", "Mara Quist childhood"]
    assert log(result, "research.gathered")[0]["answered"]
    assert result.answer == "Dayton"


def test_a_model_that_never_says_answered_stops_at_the_budget_with_a_reason(
    press_lab: Lab, isolated_home: Path
) -> None:
    searches = iter(f"more on lead {n}" for n in range(100))
    model = ScriptedModel(reader(answered_when=lambda *_: False, search=lambda *_: next(searches)))
    result = run(press_lab, isolated_home, TWO_HOPS, model, hop_pages=3)
    (ended,) = log(result, "research.gathered")
    assert ended == {"reason": "step budget of 3 pages reached", "pages": 3,
                     "rounds": ended["rounds"], "answered": False}  # fmt: skip
    assert result.status == "done"
    assert len(result.sources) > 3  # once it stopped, what it left was fetched by rules
    assert (
        "stopped: step budget of 3 pages reached" in (Path(result.run_dir) / "plan.md").read_text()
    )
    assert Path(result.report or "").is_file()  # a partial result: verified, reported, answered


def answered_after_one_page(
    lab: Lab, home: Path, question: str
) -> tuple[ResearchResult, ScriptedModel]:
    """A run whose model says "answered" after the first page it reads (and reads no other)."""
    model = ScriptedModel(reader(answered_when=lambda *_: True, search=follows_the_facts))
    result = run(lab, home, question, model)
    reads = [r for r in model.requests if "KNOWN:" in r.messages[-1].content]
    assert len(reads) == 1
    return result, model


def test_the_pages_the_loop_left_are_fetched_and_read_by_rules_at_no_model_cost(
    press_lab: Lab, isolated_home: Path
) -> None:
    # the model reads one page and says "answered": the first search's other top results
    # are fetched after it, and the answer step reads the best claims of all of them
    result, model = answered_after_one_page(press_lab, isolated_home, TWO_HOPS)
    (ended,) = log(result, "research.gathered")
    assert ended["pages"] == 1 and ended["answered"]
    titles = read_titles(result)
    assert "Blue Lantern Press" in titles and len(titles) > 1
    claims = [json.loads(line) for line in
              (Path(result.run_dir) / "claims.jsonl").read_text().splitlines()]  # fmt: skip
    filled = [c for c in claims if c["sourceIds"] != ["src_01"]]
    assert filled and {c["created_by"] for c in filled} == {"extractive"}
    # checked against their own quotes: no judge call was spent on them
    judged = [
        r.messages[-1].content for r in model.requests if "EVIDENCE:" in r.messages[-1].content
    ]
    assert not [c for c in filled if any(c["text"] in prompt for prompt in judged)]
    assert result.answer == "Mara Quist"


def test_when_the_model_names_no_search_the_bridge_rules_round_is_read_by_rules(
    press_lab: Lab, isolated_home: Path
) -> None:
    # the model says "answered" after the first page of a three-hop question: the page two
    # bridges away is still reached, by the round a run without a model would search
    result, _ = answered_after_one_page(press_lab, isolated_home, THREE_HOPS)
    rounds = log(result, "research.round")
    assert rounds and {r["by"] for r in rounds} == {"rule"}
    assert "Mara Quist" in read_titles(result)


def test_a_reply_that_does_not_validate_leaves_the_next_hop_to_the_bridge_rule(
    press_lab: Lab, isolated_home: Path
) -> None:
    script = reader(answered_when=lambda *_: False, search=follows_the_facts)

    def broken_reads(request: Any) -> object:
        prompt = request.messages[-1].content
        if "KNOWN:" in prompt and "SENTENCES:" in prompt:
            return {"claims": "not a list"}
        return script(request)

    result = run(press_lab, isolated_home, TWO_HOPS, ScriptedModel(broken_reads), hop_pages=4)
    rounds = log(result, "research.round")
    assert rounds and {r["by"] for r in rounds} == {"rule"}
    assert "extractor_fallback" in [w["code"] for w in log(result, "warning")]


def test_the_loop_stops_at_its_token_and_time_budgets() -> None:
    from assay.protocols.research.hoploop import HopBudget, HopLoop

    meter = UsageMeter()
    clock = [0.0]
    loop = HopLoop(
        "Q?", HopBudget(pages=9, tokens=1_000, seconds=60), meter, clock=lambda: clock[0]
    )
    assert loop.stop_reason() is None
    meter.record(CallUsage("m", 900, 150))
    assert (
        loop.stop_reason()
        == "token budget of 1,000 model tokens reached (1,050 spent over 0 pages)"
    )
    timed = HopLoop(
        "Q?", HopBudget(pages=9, tokens=1_000, seconds=60), None, clock=lambda: clock[0]
    )
    clock[0] = 61.0
    assert timed.stop_reason() == "time budget of 60 s reached after 0 pages"


class Killed(BaseException):
    """The process dying mid-run: nothing below catches it, the files stay as written."""


def test_a_resumed_run_goes_on_from_the_pages_its_loop_had_read(
    press_lab: Lab, isolated_home: Path
) -> None:
    searches = iter(f"more on lead {n}" for n in range(100))
    script = reader(answered_when=lambda *_: False, search=lambda *_: next(searches))

    def dies_after_the_second_page(event: Event) -> None:
        if isinstance(event, HopRead) and event.pages == 2:
            raise Killed

    config = load_settings(
        home=isolated_home, search="searxng", searxng_url=press_lab.sites[0],
        allow_hosts=["127.0.0.0/8"], hop_pages=4,
    )  # fmt: skip
    with pytest.raises(Killed):
        asyncio.run(
            research_async(
                TWO_HOPS, settings=config, model=ScriptedModel(script),
                listener=dies_after_the_second_page,
            )
        )  # fmt: skip
    (run_dir,) = isolated_home.glob("runs/*")
    logged = [json.loads(line) for line in (run_dir / "run.log.jsonl").read_text().splitlines()]
    assert [e["data"]["pages"] for e in logged if e["type"] == "research.hop_read"] == [1, 2]

    from assay.protocols.research import resume_async

    resumed = asyncio.run(resume_async(run_dir.name, settings=config, model=ScriptedModel(script)))
    (ended,) = log(resumed, "research.gathered")
    # Two pages before the kill, two after: the budget of four is spent once, not twice.
    assert ended["reason"] == "step budget of 4 pages reached" and ended["pages"] == 4
    assert [e["pages"] for e in log(resumed, "research.hop_read")] == [1, 2, 3, 4]


def test_a_restored_loop_counts_the_tokens_and_seconds_spent_before() -> None:
    from assay.protocols.research.hoploop import HopBudget, HopLoop
    from assay.protocols.research.restore import HopSpent

    meter = UsageMeter()
    clock = [0.0]
    loop = HopLoop(
        "Q?", HopBudget(pages=9, tokens=1_000, seconds=60), meter, clock=lambda: clock[0]
    )
    loop.restore(HopSpent(pages=2, rounds=1, tokens=900, seconds=50.0))
    assert loop.stop_reason() is None
    clock[0] = 11.0
    assert loop.stop_reason() == "time budget of 60 s reached after 2 pages"
    clock[0] = 0.0
    meter.record(CallUsage("m", 80, 20))
    assert loop.stop_reason() == (
        "token budget of 1,000 model tokens reached (1,000 spent over 2 pages)"
    )
    assert loop.spent().tokens == 1_000
