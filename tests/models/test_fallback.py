"""The step runner (models/fallback.py) on its own: the model's result, else the rules'
with the failure recorded as a ``step.fallback`` event, and rules that fail too."""

from __future__ import annotations

import asyncio

import pytest

from assay.events import Event, StepFallback
from assay.models import InvalidOutput, ModelTimeout
from assay.models.fallback import NO_RULES, Ran, Step, Unusable, recording_fallbacks
from assay.models.testing import ScriptedModel


def run_recorded(step: Step[object]) -> tuple[Ran[object], list[Event]]:
    events: list[Event] = []
    with recording_fallbacks(events.append):
        ran = asyncio.run(step.run())
    return ran, events


async def by_rules() -> object:
    return "rules"


def failing(error: Exception) -> Step[object]:
    async def by_model() -> object:
        raise error

    return Step("test.step", by_model, by_rules, "scripted:model")


def test_the_models_result_when_it_succeeds() -> None:
    async def by_model() -> object:
        return "model"

    ran, events = run_recorded(Step("test.step", by_model, by_rules, "m"))
    assert (ran.value, ran.by, ran.failure) == ("model", "model", None)
    assert events == []


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (InvalidOutput("m: no valid reply\nschema: ...", feedback=["x"], last_text="{"),
         "InvalidOutput"),
        (ModelTimeout("m: no reply within 2.0 s"), "ModelTimeout"),
        (Unusable("the model named no entity"), "Unusable"),
    ],
)  # fmt: skip
def test_a_failed_model_falls_back_to_the_rules_and_says_why(error: Exception, kind: str) -> None:
    ran, events = run_recorded(failing(error))
    assert (ran.value, ran.by) == ("rules", "rules")
    assert ran.failure is not None and ran.failure.error is error  # the attempt is kept
    (event,) = events
    assert isinstance(event, StepFallback)
    assert (event.step, event.model, event.kind, event.fallback) == (
        "test.step", "scripted:model", kind, "rules",
    )  # fmt: skip
    assert event.reason == str(error).splitlines()[0]
    assert event.data()["reason"] == event.reason and event.type == "step.fallback"


def test_rules_that_fail_too_raise_with_the_models_failure_noted_and_recorded() -> None:
    async def by_model() -> object:
        raise ModelTimeout("m: no reply within 1.0 s")

    async def broken_rules() -> object:
        raise ValueError("no rule applies")

    events: list[Event] = []
    with recording_fallbacks(events.append), pytest.raises(ValueError) as caught:
        asyncio.run(Step("test.step", by_model, broken_rules, "m").run())
    assert any("m: no reply within 1.0 s" in note for note in caught.value.__notes__)
    (event,) = events  # the failed model attempt was recorded before the rules ran
    assert isinstance(event, StepFallback) and event.kind == "ModelTimeout"


def test_other_errors_of_the_model_are_not_a_fallback() -> None:
    with pytest.raises(RuntimeError):
        run_recorded(failing(RuntimeError("a bug")))


def test_a_step_without_rules_gives_none_and_says_so() -> None:
    async def by_model() -> object:
        raise ModelTimeout("m: no reply")

    ran, events = run_recorded(Step("test.answer", by_model, NO_RULES, "m"))
    assert (ran.value, ran.by) == (None, "none") and ran.failure is not None
    (event,) = events
    assert isinstance(event, StepFallback) and event.fallback == "none"


def test_without_a_model_the_rules_decide_and_nothing_is_recorded() -> None:
    async def by_model(model: object) -> object:
        raise AssertionError("no model to call")

    ran, events = run_recorded(Step.of("test.step", None, by_model, by_rules))
    assert (ran.value, ran.by, ran.failure, events) == ("rules", "rules", None, [])


def test_step_of_binds_the_model_and_names_it() -> None:
    model = ScriptedModel([], name="scripted:bound")

    async def by_model(given: object) -> object:
        assert given is model
        raise Unusable("nothing usable")

    ran, events = run_recorded(Step.of("test.step", model, by_model, by_rules))
    assert ran.by == "rules"
    (event,) = events
    assert isinstance(event, StepFallback) and event.model == "scripted:bound"


def test_outside_a_run_a_fallback_is_not_recorded_anywhere() -> None:
    ran = asyncio.run(failing(Unusable("x")).run())
    assert ran.by == "rules" and ran.failure is not None
