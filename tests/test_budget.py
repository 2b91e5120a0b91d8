"""Budgets: each kind runs out with a stated reason, deterministically (injected clock)."""

from __future__ import annotations

import pytest

from assay.budget import Budget
from assay.config import Settings
from assay.errors import BudgetExhausted


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_unlimited_budget_never_stops() -> None:
    budget = Budget()
    for _ in range(1000):
        budget.charge_call()
        budget.charge_fetch()
        budget.charge_tokens(10_000, 10_000)
    budget.check()
    assert budget.remaining_time() is None
    assert budget.remaining_tokens() is None
    assert budget.cap_timeout(30.0) == 30.0


def test_token_budget_stops_the_next_call_with_the_spec_message() -> None:
    budget = Budget(tokens=1_000)
    budget.charge_call()
    budget.charge_tokens(600, 200)
    budget.charge_call()
    budget.charge_tokens(150, 100)  # overshoots by one call: recorded, not raised
    assert budget.remaining_tokens() == 0
    with pytest.raises(BudgetExhausted) as caught:
        budget.charge_call()
    assert str(caught.value) == (
        "token budget of 1,000 exhausted after 2 calls (1,050 tokens used)"
    )
    assert caught.value.exit_code == 3
    with pytest.raises(BudgetExhausted):
        budget.check()


def test_call_budget_allows_exactly_n_calls() -> None:
    budget = Budget(model_calls=3)
    for _ in range(3):
        budget.charge_call()
    with pytest.raises(BudgetExhausted, match="model-call budget of 3 exhausted"):
        budget.charge_call()
    assert budget.spent().model_calls == 3


def test_fetch_budget_allows_exactly_n_fetches() -> None:
    budget = Budget(fetches=2)
    budget.charge_fetch()
    budget.charge_fetch()
    with pytest.raises(BudgetExhausted, match="fetch budget of 2 exhausted"):
        budget.charge_fetch()
    # a spent fetch budget ends the run: no model call may start either
    with pytest.raises(BudgetExhausted):
        budget.charge_call()


def test_time_budget_with_injected_clock() -> None:
    clock = FakeClock()
    budget = Budget(time_limit=60.0, clock=clock)
    assert budget.remaining_time() == 60.0
    clock.now += 45.0
    assert budget.remaining_time() == pytest.approx(15.0)
    assert budget.cap_timeout(120.0) == pytest.approx(15.0)
    assert budget.cap_timeout(5.0) == 5.0
    clock.now += 20.0
    assert budget.remaining_time() == 0.0
    with pytest.raises(BudgetExhausted, match=r"time budget of 60 s exhausted after 65 s"):
        budget.cap_timeout(10.0)
    assert budget.exhausted_reason() is not None


def test_from_settings_reads_the_budget_fields() -> None:
    settings = Settings(budget_tokens=500, budget_model_calls=4, budget_fetches=9, budget_time=12.5)
    clock = FakeClock()
    budget = Budget.from_settings(settings, clock=clock)
    assert (budget.tokens, budget.model_calls, budget.fetches, budget.time_limit) == (
        500,
        4,
        9,
        12.5,
    )
    clock.now += 2.5
    assert budget.remaining_time() == pytest.approx(10.0)
    assert Budget.from_settings(Settings()).exhausted_reason() is None


@pytest.mark.parametrize(
    "kwargs",
    [{"tokens": 0}, {"model_calls": -1}, {"fetches": 0}, {"time_limit": 0.0}],
)
def test_invalid_limits_are_rejected(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        Budget(**kwargs)  # type: ignore[arg-type]


def test_negative_tokens_are_rejected() -> None:
    with pytest.raises(ValueError):
        Budget().charge_tokens(-1)
