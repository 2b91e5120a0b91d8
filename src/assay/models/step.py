"""A model step: one kind of typed call a protocol makes again and again (judge a claim,
extract claims, pick key points), with its model, budget, meter and limits held once."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel

from assay.budget import Budget
from assay.models.base import Model
from assay.models.call import typed_call
from assay.models.usage import UsageMeter

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
