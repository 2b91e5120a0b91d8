"""Run history: every run of the store, searchable by question and filtered by protocol,
status and date (a plain GET form: it works without script), and two runs side by side:
their answers, claim counts and the settings that differ."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from assay.protocols.launch import PROTOCOLS
from assay.statuses import CLAIM_STATUSES
from assay.store.runs import RunInfo, RunStore
from assay.store.summary import run_summary
from assay.web.form import PROTOCOL_TEXT
from assay.web.lookup import open_run
from assay.web.render import render, setting_text
from assay.web.report_view import STATUS_LABELS, run_view
from assay.web.runs import manager

router = APIRouter(include_in_schema=False)
RUN_STATUSES = ("running", "done", "failed", "interrupted")
COMPARED_SETTINGS = ("search", "model", "include_domains", "exclude_domains", "since", "until",
                     "budget_time", "budget_tokens", "max_results")  # fmt: skip


def newest_first(store: RunStore) -> list[RunInfo]:
    """Every run, the latest started first (ids of one second sort by their slug)."""
    return sorted(store.list(), key=lambda info: info.created_at, reverse=True)


@dataclass(frozen=True)
class Filters:
    q: str = ""
    protocol: str = ""
    status: str = ""
    since: date | None = None
    until: date | None = None

    def keep(self, row: dict[str, Any]) -> bool:
        day = str(row["started"])[:10]
        return (
            (not self.q or self.q.casefold() in str(row["topic"]).casefold())
            and (not self.protocol or row["protocol"] == self.protocol)
            and (not self.status or row["status"] == self.status)
            and (self.since is None or day >= self.since.isoformat())
            and (self.until is None or day <= self.until.isoformat())
        )

    @property
    def active(self) -> bool:
        return bool(self.q or self.protocol or self.status or self.since or self.until)


@router.get("/history", response_class=HTMLResponse)
def history(
    request: Request,
    q: str = "",
    protocol: str = "",
    status: str = "",
    since: date | None = None,
    until: date | None = None,
) -> HTMLResponse:
    store = manager(request).store
    chosen = Filters(q.strip()[:200], protocol, status, since, until)
    rows = [run_summary(store, info) for info in newest_first(store)]
    shown = [row for row in rows if chosen.keep(row)]
    return render(
        request, "history.html", nav="history", runs=shown, total=len(rows), filters=chosen,
        protocols=PROTOCOLS, statuses=RUN_STATUSES, titles=PROTOCOL_TEXT,
    )  # fmt: skip


@router.get("/compare", response_class=HTMLResponse)
def compare(request: Request, a: str, b: str) -> HTMLResponse:
    store = manager(request).store
    views = [run_view(open_run(store, run_id)) for run_id in (a, b)]
    settings = [
        (name, [setting_text(v.run.info.config.get(name)) for v in views])
        for name in COMPARED_SETTINGS
    ]
    differing = {name for name, values in settings if values[0] != values[1]}
    return render(
        request, "compare.html", nav="history", views=views, settings=settings,
        differing=differing, statuses=CLAIM_STATUSES, labels=STATUS_LABELS,
        summaries=[run_summary(store, v.run.info) for v in views], titles=PROTOCOL_TEXT,
    )  # fmt: skip
