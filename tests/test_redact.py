"""One secret scrubber (``assay.redact``) for every writer and printer."""

from __future__ import annotations

from pathlib import Path

from assay.redact import MASK, mask
from assay.store.eventlog import EventLog


def test_mask_removes_the_longest_secret_whole_first() -> None:
    # A key that holds another must go whole, not leave its tail behind.
    assert mask("token abcdef123456 and abcdef", ["abcdef", "abcdef123456"]) == (
        f"token {MASK} and {MASK}"
    )
    assert mask("nothing here", ["", "absent-secret"]) == "nothing here"


def test_the_event_log_masks_the_secrets_it_is_given_in_nested_data(tmp_path: Path) -> None:
    from assay.events import WarningEvent

    log = EventLog(tmp_path / "run.log.jsonl", fsync=False, secrets=frozenset({"sk-live-99887766"}))
    log.emit(WarningEvent(message="the provider said: bad key sk-live-99887766", code="x"))
    written = (tmp_path / "run.log.jsonl").read_text()
    assert "sk-live-99887766" not in written and MASK in written
