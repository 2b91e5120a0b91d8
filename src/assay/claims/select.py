"""Which judge a run uses: the configured model, or the extractive engine without one."""

from __future__ import annotations

from assay.budget import Budget
from assay.claims.judge import Judge
from assay.config import Settings
from assay.keys import KeyStore
from assay.models.usage import UsageMeter


def build_judge(
    settings: Settings,
    keys: KeyStore,
    *,
    budget: Budget | None = None,
    meter: UsageMeter | None = None,
) -> Judge:
    from assay.models.registry import model_from_settings

    model = model_from_settings(settings, keys)
    if model is None:
        from assay.engines.extractive.judge import ExtractiveJudge

        return ExtractiveJudge()
    from assay.claims.model_judge import ModelJudge

    return ModelJudge(model, budget=budget, meter=meter)
