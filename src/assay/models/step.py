"""A model step: one kind of typed call a protocol makes again and again (judge a claim,
extract claims, pick key points), with its model, budget, meter and limits held once;
``fit`` fits a prompt's evidence to the model's context window before it is asked."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from pydantic import BaseModel

from assay.budget import Budget
from assay.models.base import Model
from assay.models.call import system_prompt, typed_call
from assay.models.output import OutputType
from assay.models.usage import UsageMeter
from assay.models.window import Fitted, fit_prompt

T = TypeVar("T", bound=BaseModel)


class ModelStep:
    """Holds what every call of a step shares; ``ask`` makes one call at temperature 0."""

    def __init__(
        self,
        model: Model,
        *,
        budget: Budget | None = None,
        meter: UsageMeter | None = None,
        timeout: float = 120.0,
        max_tokens: int = 500,
        retries: int = 2,
    ) -> None:
        self.model = model
        self.name = model.name
        self.budget = budget
        self.meter = meter
        self.timeout = timeout
        self.max_tokens = max_tokens
        self.retries = retries

    def retrying(self, retries: int) -> ModelStep:
        """This step with another number of retries: the same model, budget, meter and
        limits."""
        return ModelStep(
            self.model, budget=self.budget, meter=self.meter, timeout=self.timeout,
            max_tokens=self.max_tokens, retries=retries,
        )  # fmt: skip

    async def ask(self, system: str, prompt: str, output: type[T], output_name: str) -> T:
        result = await typed_call(
            self.model,
            system=system,
            prompt=prompt,
            output=output,
            output_name=output_name,
            timeout=self.timeout,
            max_tokens=self.max_tokens,
            retries=self.retries,
            budget=self.budget,
            meter=self.meter,
            temperature=0.0,
        )
        return result.output

    async def fit(
        self,
        system: str,
        render: Callable[[Sequence[int]], str],
        count: int,
        output: type[BaseModel],
        *,
        drop_order: Sequence[int] | None = None,
    ) -> Fitted:
        """The prompt ``render(kept)`` with as many of ``count`` evidence items as the
        model's window holds beside ``system``, ``output``'s schema and this step's reply
        (``models/window.fit_prompt``: the lowest-ranked go first)."""
        spec = OutputType.of(output)
        return await fit_prompt(
            self.model,
            system=system_prompt(self.model, system, spec),
            render=render,
            count=count,
            max_tokens=self.max_tokens,
            drop_order=drop_order,
            schema=spec.schema,
        )
