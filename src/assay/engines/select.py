"""The judge and the claim extractor a run uses: the model's, or the extractive engine's."""

from __future__ import annotations

from assay.budget import Budget
from assay.claims.extract import ClaimExtractor, ExtractiveExtractor
from assay.claims.judge import Judge
from assay.claims.model_extract import ModelExtractor
from assay.claims.model_judge import ModelJudge
from assay.engines.extractive.judge import ExtractiveJudge
from assay.models import Model
from assay.models.usage import UsageMeter


def build_judge(model: Model | None, *, budget: Budget | None, meter: UsageMeter | None) -> Judge:
    if model is None:
        return ExtractiveJudge()
    return ModelJudge(model, budget=budget, meter=meter)


def build_extractor(
    model: Model | None, *, budget: Budget | None, meter: UsageMeter | None
) -> ClaimExtractor:
    if model is None:
        return ExtractiveExtractor()
    return ModelExtractor(model, budget=budget, meter=meter)
