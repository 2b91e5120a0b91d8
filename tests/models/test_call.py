"""The typed call over the scripted model: validation, retries, unions, timeouts, budgets, usage."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Annotated, Any, Literal, TypeVar

import pytest
from pydantic import BaseModel, Field, TypeAdapter

from assay.budget import Budget
from assay.errors import BudgetExhausted, ProviderError
from assay.events import Usage
from assay.models import (
    CallUsage,
    InvalidOutput,
    Message,
    ModelProfile,
    ModelTimeout,
    Reply,
    Request,
    UsageMeter,
    UsageSummary,
    typed_call,
)
from assay.models.testing import ScriptedModel, Stall

T = TypeVar("T")


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


class Answer(BaseModel):
    city: str
    population: int


class WebSearch(BaseModel):
    kind: Literal["web_search"] = "web_search"
    queries: list[str] = Field(min_length=1, max_length=5)


class ReadUrl(BaseModel):
    kind: Literal["read_url"] = "read_url"
    url: str


class Finish(BaseModel):
    kind: Literal["finish"] = "finish"
    answer: str


Action = WebSearch | ReadUrl | Finish
ACTION: TypeAdapter[Action] = TypeAdapter(Annotated[Action, Field(discriminator="kind")])


def test_valid_reply_first_time() -> None:
    model = ScriptedModel([{"city": "Paris", "population": 2_100_000}])
    result = run(typed_call(model, system="Be exact.", prompt="Paris?", output=Answer, timeout=5))
    assert result.output == Answer(city="Paris", population=2_100_000)
    assert result.attempts == 1
    assert result.feedback == ()
    request = model.requests[0]
    assert request.system.startswith("Be exact.")
    assert '"population"' in request.system  # the schema is described to small models
    assert request.messages == (Message("user", "Paris?"),)
    assert request.output is not None and request.output.name == "Answer"
    assert request.max_tokens == 1_024  # the profile's default
    assert 0 < request.timeout <= 5


def test_invalid_then_valid_feeds_the_error_back() -> None:
    model = ScriptedModel(
        [
            "Paris has about two million people.",
            '```json\n{"city": "Paris", "population": "two million"}\n```',
            Answer(city="Paris", population=2_000_000),
        ]
    )
    result = run(typed_call(model, system="", prompt="Paris?", output=Answer, timeout=5))
    assert result.output.population == 2_000_000
    assert result.attempts == 3
    assert len(result.feedback) == 2
    assert "no JSON object" in result.feedback[0]
    assert "population" in result.feedback[1]
    last = model.requests[2].messages
    assert [m.role for m in last] == ["user", "assistant", "user", "assistant", "user"]
    assert last[1].content == "Paris has about two million people."
    assert "population" in last[4].content
    assert "automatic check" in last[4].content


def test_retries_are_bounded() -> None:
    model = ScriptedModel(["nope", "still nope", "never", "unused"])
    with pytest.raises(InvalidOutput) as caught:
        run(typed_call(model, system="", prompt="?", output=Answer, timeout=5, retries=2))
    assert len(model.requests) == 3
    assert model.remaining == 1
    assert len(caught.value.feedback) == 3
    assert caught.value.last_text == "never"
    assert isinstance(caught.value, ProviderError)
    assert "in 3 attempts" in str(caught.value)


def test_zero_retries_means_one_attempt() -> None:
    model = ScriptedModel(["nope", Answer(city="x", population=1)])
    with pytest.raises(InvalidOutput):
        run(typed_call(model, system="", prompt="?", output=Answer, timeout=5, retries=0))
    assert len(model.requests) == 1


def test_agent_decision_is_an_action_from_a_union() -> None:
    def decide(request: Request) -> dict[str, Any] | BaseModel:
        if "weather" in request.prompt:
            return {"result": {"kind": "web_search", "queries": ["weather Lyon today"]}}
        if "http" in request.prompt:
            return ReadUrl(url="http://site.test/a")  # unwrapped: still understood
        return {"result": {"kind": "finish", "answer": "done"}}

    model = ScriptedModel(decide)
    system = "Choose the next action."
    choices = [
        run(typed_call(model, system=system, prompt=p, output=ACTION, timeout=5)).output
        for p in ("weather in Lyon?", "read http://site.test/a", "that is all")
    ]
    assert choices == [
        WebSearch(queries=["weather Lyon today"]),
        ReadUrl(url="http://site.test/a"),
        Finish(answer="done"),
    ]
    match choices[0]:
        case WebSearch(queries=queries):
            assert queries == ["weather Lyon today"]
        case _:
            pytest.fail("expected a web search")
    output = model.requests[0].output
    assert output is not None and output.enveloped
    assert set(output.json_schema["$defs"]) == {"WebSearch", "ReadUrl", "Finish"}


def test_invalid_action_is_retried_with_feedback() -> None:
    model = ScriptedModel(
        [
            {"result": {"kind": "web_search", "queries": []}},
            {"result": {"kind": "fly", "to": "moon"}},
            {"result": {"kind": "web_search", "queries": ["a"]}},
        ]
    )
    result = run(typed_call(model, system="", prompt="go", output=ACTION, timeout=5))
    assert result.output == WebSearch(queries=["a"])
    assert "queries" in result.feedback[0]
    assert result.attempts == 3


def test_conversation_prompt_and_async_script_function() -> None:
    async def reply(request: Request) -> str:
        await asyncio.sleep(0)
        return f'{{"city": "{request.messages[0].content}", "population": {len(request.messages)}}}'

    model = ScriptedModel(reply)
    turns = [Message("user", "Oslo"), Message("assistant", "ok"), Message("user", "and?")]
    result = run(typed_call(model, system="s", prompt=turns, output=Answer, timeout=5))
    assert result.output == Answer(city="Oslo", population=3)
    with pytest.raises(ValueError, match="end with a user message"):
        run(typed_call(model, system="s", prompt=turns[:2], output=Answer, timeout=5))


def test_stalled_model_times_out() -> None:
    model = ScriptedModel([Stall()])
    started = asyncio.run(
        _timed(typed_call(model, system="", prompt="?", output=Answer, timeout=0.2))
    )
    elapsed, error = started
    assert isinstance(error, ModelTimeout)
    assert "no reply within" in str(error)
    assert elapsed < 2


async def _timed(coroutine: Coroutine[Any, Any, Any]) -> tuple[float, BaseException | None]:
    loop = asyncio.get_running_loop()
    start = loop.time()
    try:
        await coroutine
    except Exception as exc:
        return loop.time() - start, exc
    return loop.time() - start, None


def test_timeout_covers_all_attempts() -> None:
    model = ScriptedModel([Stall(0.15, "bad"), Stall(0.15, "bad"), Stall(0.15, "bad")])
    elapsed, error = run(
        _timed(typed_call(model, system="", prompt="?", output=Answer, timeout=0.4, retries=5))
    )
    assert isinstance(error, ModelTimeout)
    assert elapsed < 1.0
    assert len(model.requests) == 3


def test_provider_errors_propagate() -> None:
    model = ScriptedModel([ProviderError("scripted: HTTP 500")])
    with pytest.raises(ProviderError, match="HTTP 500"):
        run(typed_call(model, system="", prompt="?", output=Answer, timeout=5))
    with pytest.raises(ProviderError, match="no reply left"):
        run(typed_call(ScriptedModel([]), system="", prompt="?", output=Answer, timeout=5))


def test_spent_budget_refuses_to_start() -> None:
    model = ScriptedModel([Answer(city="x", population=1)])
    budget = Budget(model_calls=1)
    budget.charge_call()
    with pytest.raises(BudgetExhausted, match="model-call budget of 1 exhausted"):
        run(typed_call(model, system="", prompt="?", output=Answer, timeout=5, budget=budget))
    assert model.requests == []


def test_budget_stops_retries() -> None:
    model = ScriptedModel(["bad", "bad", Answer(city="x", population=1)])
    budget = Budget(model_calls=2)
    with pytest.raises(BudgetExhausted):
        run(typed_call(model, system="", prompt="?", output=Answer, timeout=5, budget=budget))
    assert len(model.requests) == 2


def test_token_budget_is_charged_and_ends_the_loop() -> None:
    model = ScriptedModel([Answer(city="x", population=1)] * 10, usage=(300, 50))
    budget = Budget(tokens=1_000)
    done = 0
    with pytest.raises(BudgetExhausted, match="token budget of 1,000 exhausted after 3 calls"):
        while True:  # an agent loop: only the budget ends it
            run(typed_call(model, system="", prompt="?", output=Answer, timeout=5, budget=budget))
            done += 1
    assert done == 3


class StepClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_timeout_never_exceeds_the_remaining_wall_time() -> None:
    clock = StepClock()
    budget = Budget(time_limit=100.0, clock=clock)
    clock.now = 99.5
    model = ScriptedModel([Answer(city="x", population=1)])
    run(typed_call(model, system="", prompt="?", output=Answer, timeout=30, budget=budget))
    assert model.requests[0].timeout == pytest.approx(0.5, abs=0.01)
    clock.now = 100.0
    with pytest.raises(BudgetExhausted, match="time budget"):
        run(typed_call(model, system="", prompt="?", output=Answer, timeout=30, budget=budget))


def test_usage_reported_by_the_endpoint_with_cost() -> None:
    profile = ModelProfile(output_mode="json_schema", price_input=2.0, price_output=8.0)
    model = ScriptedModel(
        [Reply('{"city": "a", "population": 1}', input_tokens=1_000, output_tokens=500)],
        profile=profile,
    )
    result = run(typed_call(model, system="", prompt="?", output=Answer, timeout=5))
    assert result.usage.input_tokens == 1_000
    assert result.usage.output_tokens == 500
    assert result.usage.estimated is False
    assert result.usage.cost_usd == pytest.approx(0.006)


def test_usage_is_estimated_when_not_reported() -> None:
    model = ScriptedModel(['{"city": "Paris", "population": 2}'])
    result = run(typed_call(model, system="Be brief.", prompt="Paris?", output=Answer, timeout=5))
    assert result.usage.estimated is True
    assert result.usage.input_tokens > 10  # system + schema + prompt
    assert 5 <= result.usage.output_tokens <= 20
    assert result.usage.cost_usd is None


def test_meter_adds_up_every_attempt_and_tells_the_listener() -> None:
    seen: list[tuple[CallUsage, UsageSummary]] = []
    meter = UsageMeter()
    meter.add_listener(lambda call, totals: seen.append((call, totals)))
    model = ScriptedModel(["bad", '{"city": "a", "population": 1}'], usage=(100, 10))
    result = run(typed_call(model, system="", prompt="?", output=Answer, timeout=5, meter=meter))
    assert len(seen) == 2
    assert result.usage.input_tokens == 200
    assert meter.totals == UsageSummary(
        input_tokens=200, output_tokens=20, model_calls=2, cost_usd=None, estimated=False
    )
    event = seen[0][0].to_event()
    assert isinstance(event, Usage)
    assert event.model_dump() == {
        "type": "usage",
        "model": "scripted:model",
        "input_tokens": 100,
        "output_tokens": 10,
        "estimated": False,
        "cost_usd": None,
    }
    assert set(seen[-1][1].as_dict()) == {
        "input_tokens",
        "output_tokens",
        "model_calls",
        "cost_usd",
        "estimated",
    }


def test_timed_out_attempt_is_metered_as_an_estimate() -> None:
    meter = UsageMeter()
    budget = Budget()
    with pytest.raises(ModelTimeout):
        run(
            typed_call(
                ScriptedModel([Stall()]),
                system="",
                prompt="?",
                output=Answer,
                timeout=0.05,
                meter=meter,
                budget=budget,
            )
        )
    assert meter.totals.model_calls == 1
    assert meter.totals.estimated is True
    assert budget.spent().model_calls == 1


def test_prompted_mode_and_length_hint() -> None:
    profile = ModelProfile(output_mode="prompted_json", max_tokens=64)
    model = ScriptedModel(
        [Reply('{"city": "Par', finish_reason="length"), '{"city": "P", "population": 1}'],
        profile=profile,
    )
    result = run(typed_call(model, system="S", prompt="?", output=Answer, timeout=5))
    assert result.attempts == 2
    assert "cut off at 64 tokens" in result.feedback[0]
    assert model.requests[0].mode == "prompted_json"
    assert "JSON schema" in model.requests[0].system


def test_schema_stays_out_of_the_prompt_when_the_profile_says_so() -> None:
    profile = ModelProfile(output_mode="json_schema", schema_in_prompt=False)
    model = ScriptedModel([Answer(city="a", population=1)], profile=profile)
    run(typed_call(model, system="S", prompt="?", output=Answer, timeout=5, max_tokens=99))
    assert model.requests[0].system == "S"
    assert model.requests[0].max_tokens == 99


@pytest.mark.parametrize(
    "kwargs", [{"timeout": 0}, {"timeout": 5, "retries": -1}, {"timeout": 5, "max_tokens": 0}]
)
def test_bad_arguments(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        run(typed_call(ScriptedModel([]), system="", prompt="?", output=Answer, **kwargs))
