"""Queue messages in-process: the signature, the schema of what a client may ask, and what a
worker takes from its own configuration instead (no Redis needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.batch import BatchJob, BatchSpec
from assay.config import load_settings
from assay.errors import BadInputError, ConfigError, MissingKeyError
from assay.queue.envelope import (
    QueuedQuestion,
    RejectedMessage,
    _signature,
    open_envelope,
    queue_key,
    seal,
)
from assay.queue.messages import question
from tests.queue_fixtures import TEST_QUEUE_KEY

KEY = TEST_QUEUE_KEY.encode()


def asked(**changes: object) -> QueuedQuestion:
    base: dict[str, object] = {"batch": "0123456789abcdef", "protocol": "ask",
                               "job": {"id": "q1", "question": "When was it built?"}}  # fmt: skip
    return QueuedQuestion.model_validate(base | changes)


def resigned(payload: dict[str, object]) -> dict[str, object]:
    """An envelope signed with the right key around a payload of the sender's choosing."""
    text = json.dumps(payload)
    return {"v": 1, "payload": text, "sig": _signature(text, KEY)}


def test_a_sealed_question_opens_with_its_key_only() -> None:
    envelope = seal(asked(limits={"budget_tokens": 500}), KEY)
    assert open_envelope(envelope, KEY) == asked(limits={"budget_tokens": 500})
    with pytest.raises(RejectedMessage, match="bad signature"):
        open_envelope(envelope, b"another-key-" + b"1" * 40)
    tampered = {**envelope, "payload": envelope["payload"].replace("q1", "q2")}
    with pytest.raises(RejectedMessage, match="bad signature"):
        open_envelope(tampered, KEY)


@pytest.mark.parametrize(
    "envelope",
    [
        {"job": {"id": "x", "question": "?"}, "settings": {"mcp_command": ["sh"]}},
        {"v": 1, "payload": "{}"},
        {"v": 2, "payload": "{}", "sig": "00"},
        {"v": 1, "payload": 5, "sig": "00"},
        {"v": 1, "payload": "{}", "sig": "é" * 64},
        [1, 2, 3],
        None,
    ],
)
def test_what_is_not_a_signed_envelope_is_rejected(envelope: object) -> None:
    with pytest.raises(RejectedMessage):
        open_envelope(envelope, KEY)


@pytest.mark.parametrize(
    ("extra", "where"),
    [
        ({"settings": {"mcp_command": ["sh", "-c", "id"]}}, "settings"),
        ({"mcp_command": ["sh", "-c", "id"]}, "mcp_command"),
        ({"results": "/tmp/elsewhere.jsonl"}, "results"),
        ({"output_dir": "/etc"}, "output_dir"),
        ({"base_url": "http://attacker.test/v1"}, "base_url"),
        ({"home": "/tmp/other-store"}, "home"),
        ({"batch": "../../etc"}, "batch"),
        ({"limits": {"allow_hosts": 1}}, "limits"),
        ({"limits": {"budget_tokens": 0}}, "limits"),
        ({"protocol": "synth"}, "protocol"),
        ({"job": {"id": "x", "question": "?", "gold": "an extra key"}}, "job.gold"),
    ],
)
def test_a_signed_payload_holds_only_what_a_client_may_choose(
    extra: dict[str, object], where: str
) -> None:
    payload = asked().model_dump(mode="json") | extra
    with pytest.raises(RejectedMessage, match=f"not a queued question: {where}"):
        open_envelope(resigned(payload), KEY)


def test_the_message_a_client_builds_carries_no_path_endpoint_or_command(tmp_path: Path) -> None:
    settings = load_settings(
        home=tmp_path / "client", search="mcp", mcp_command=["sh", "-c", "id"],
        base_url="http://client.test/v1", allow_hosts=["10.0.0.0/8"], budget_tokens=900,
    )  # fmt: skip
    job = BatchJob.model_validate({"id": "q1", "question": "?", "gold": "kept for graders"})
    envelope = seal(question(job, BatchSpec("research", settings), "0123456789abcdef"), KEY)
    text = envelope["payload"]
    for leaked in ("mcp", "client.test", "10.0.0.0", str(tmp_path), "gold"):
        assert leaked not in text
    assert json.loads(text)["limits"] == {"budget_tokens": 900.0}


def test_the_worker_keeps_its_own_settings_and_lends_only_what_it_allows(
    tmp_path: Path,
) -> None:
    worker = load_settings(
        home=tmp_path / "worker", search="mcp", mcp_command=["my-search-server"],
        model="openai:own", base_url="http://127.0.0.1:8000/v1", context_tokens=4096,
        queue_models=["openai:other"], budget_tokens=1000, allow_hosts=["127.0.0.1"],
    )  # fmt: skip
    same = asked(limits={"budget_tokens": 50_000, "budget_time": 30}).settings_for(worker)
    assert same.budget_tokens == 1000  # a message tightens the worker's limits, never loosens
    assert same.budget_time == 30
    kept = ("home", "search", "mcp_command", "base_url", "allow_hosts", "keys", "model")
    assert all(getattr(same, name) == getattr(worker, name) for name in kept)
    assert same.context_tokens == 4096
    other = asked(model="openai:other").settings_for(worker)
    assert other.model == "openai:other" and other.base_url == worker.base_url
    assert other.context_tokens is None  # the tuning was for the worker's own model
    with pytest.raises(BadInputError, match="'openai:gpt-x' is not one this worker runs"):
        asked(model="openai:gpt-x").settings_for(worker)


def test_the_signing_key_is_required_and_must_be_long(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = load_settings()
    with pytest.raises(MissingKeyError, match="ASSAY_QUEUE_KEY"):
        queue_key(settings)
    monkeypatch.setenv("ASSAY_QUEUE_KEY", "short")
    with pytest.raises(ConfigError, match="at least 32"):
        queue_key(settings)
    monkeypatch.delenv("ASSAY_QUEUE_KEY")
    from assay.keys import KeyStore

    KeyStore(isolated_home).save("ASSAY_QUEUE_KEY", TEST_QUEUE_KEY)  # `assay keys set`
    assert queue_key(settings) == KEY


def test_a_rerun_copies_the_rows_workers_wrote_after_the_client_stopped_following(
    tmp_path: Path,
) -> None:
    from assay.batch import BatchFiles, ResultRow
    from assay.batch.driver import pending
    from assay.queue.messages import batch_id, queue_files
    from assay.queue.submit import catch_up

    files = BatchFiles(tmp_path / "q.results.jsonl")
    shared = queue_files(tmp_path / "home", batch_id(files.results))
    assert shared.results.is_relative_to(tmp_path / "home" / "queue")
    shared.add_result(ResultRow(id="q1", status="done", answer="1874"))
    shared.add_result(ResultRow(id="q2", status="failed", reason="no search"))
    jobs = [BatchJob(id="q1", question="?"), BatchJob(id="q2", question="?")]
    assert catch_up(shared, files) == 1 and catch_up(shared, files) == 0
    assert [j.id for j in pending(jobs, files)] == ["q2"]  # the failed one runs again
    assert files.rows()["q1"].answer == "1874"
