"""The events are one discriminated union, read through one adapter; listeners and readers
get typed events, and a line this version cannot read never stops a reader."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from assay import events
from assay.events import Event, HopRead, SearchRound, parse_event
from assay.protocols.research.restore import hop_spent, last_round
from assay.store.eventlog import EventLog


def _defined_events() -> list[type[Event]]:
    return [
        cls
        for _, cls in inspect.getmembers(events, inspect.isclass)
        if issubclass(cls, Event) and cls is not Event and cls.__module__ == events.__name__
    ]


def _example(cls: type[Event]) -> Event:
    """An instance with every required field filled from its annotation."""
    samples: dict[str, Any] = {}
    for name, info in cls.model_fields.items():
        if name == "type" or not info.is_required():
            continue
        text = str(info.annotation)
        if "Literal" in text:
            samples[name] = text.split("'")[1]
        elif info.annotation is int or text == "int":
            samples[name] = 3
        elif info.annotation is float or text == "float":
            samples[name] = 1.5
        elif info.annotation is bool or text == "bool":
            samples[name] = True
        elif text.startswith("list"):
            samples[name] = ["a"]
        elif text.startswith("dict"):
            samples[name] = {"a": True} if "bool" in text else {"a": "b"}
        else:
            samples[name] = f"{name}-value"
    return cls(**samples)


def test_every_event_class_is_a_member_of_the_union() -> None:
    defined = set(_defined_events())
    assert len(defined) >= 28
    assert defined == set(events.EVENT_CLASSES), "add the new event to AnyEvent in events.py"


@pytest.mark.parametrize("cls", _defined_events(), ids=lambda c: c.__name__)
def test_each_event_round_trips_through_the_adapter(cls: type[Event]) -> None:
    event = _example(cls)
    line = json.loads(json.dumps({"type": event.type, "data": event.data(), "seq": 0}))
    assert "type" not in line["data"]  # the type stays beside the data, as before
    parsed = parse_event(line)
    assert type(parsed) is cls and parsed == event
    assert events.EVENTS.validate_python({"type": event.type, **event.data()}) == event


def test_a_line_this_version_cannot_read_is_none() -> None:
    assert parse_event({"type": "from.the.future", "data": {"x": 1}}) is None
    assert parse_event({"data": {"pages": 1}}) is None
    assert parse_event({"type": "research.hop_read", "data": {"pages": "many"}}) is None
    assert parse_event({"type": "research.hop_read", "data": "not an object"}) is None


def test_a_listener_receives_the_event_as_written(tmp_path: Path) -> None:
    heard: list[object] = []
    log = EventLog(tmp_path / "log.jsonl", fsync=False, secrets=frozenset({"sk-secret"}))
    log.listeners.append(heard.append)
    log.emit(events.WarningEvent(message="key sk-secret failed", code="x"))
    log.emit(HopRead(pages=1, tokens=2, seconds=0.5))
    assert [type(e) for e in heard] == [events.WarningEvent, HopRead]
    assert isinstance(heard[0], BaseModel) and "sk-secret" not in heard[0].message


def test_resume_reads_past_unknown_and_old_lines(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    lines = [
        {"type": "research.hop_read", "data": {"pages": 1, "tokens": 10, "seconds": 1.0}},
        {"type": "from.the.future", "data": {"pages": 99}},
        {"type": "research.hop_read", "data": {"pages": "an old shape"}},
        {"type": "research.round", "data": {"round": 2, "missing": "m", "queries": ["q"]}},
        {"type": "research.round", "data": {"round": "x"}},
        {"type": "research.hop_read", "data": {"pages": 2, "tokens": 20, "seconds": 2.0}},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    typed = EventLog(path, fsync=False).events()
    assert [type(e) for e in typed] == [HopRead, SearchRound, HopRead]
    spent = hop_spent(typed)
    assert (spent.pages, spent.tokens, spent.rounds) == (2, 20, 1)
    assert last_round(typed) == 2


def test_claim_verified_takes_the_settled_statuses_of_the_claims_ledger() -> None:
    from typing import get_args

    from assay.statuses import CLAIM_STATUSES, SettledStatus

    settled = get_args(SettledStatus)
    assert (*settled, "unverified") == CLAIM_STATUSES
    assert get_args(events.ClaimVerified.model_fields["status"].annotation) == settled


def test_one_module_names_the_event_log_file() -> None:
    source = Path(events.__file__).parent
    spelled = [
        str(path.relative_to(source))
        for path in source.rglob("*.py")
        if '"run.log.jsonl"' in path.read_text(encoding="utf-8")
    ]
    assert spelled == ["store/eventlog.py"]
