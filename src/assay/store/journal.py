"""A JSON Lines ledger held in memory, with its file as the journal.

The file is read once; after that each access costs one ``stat``. What this journal
appends is read back from where the last read stopped; a file changed by anyone else (a
second ledger, another process) is read again whole, so a reader never misses a record.
Appends stay durable the moment they happen (``store.jsonl``: one write, fsync); a
replacement is one atomic write (``store.atomic``). What is in memory is what the file
says, secrets masked, so this process and a second reader of the run directory (``assay
show`` or ``verify`` while a run works) see the same records.

Records can also be changed in memory only (``stage``) and written together later
(``flush``): the verification engine stages each status and writes them at checkpoints,
so a pass over n claims rewrites the file a bounded number of times instead of n times.
A record edited in place without changing the file's size or time within one clock tick
can go unseen by a journal already open; ``assay verify`` always reads the files afresh.

A journal is its file's writer, not a follower of another's (that is ``store.tail``): it
takes as an append only what it wrote itself, and reads any other change again whole,
since a ledger is also rewritten (``flush``) and an inode can be reused by a replacement.
The file's state (``store.tail.FileState``) is what tells it nothing changed.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from assay.store.atomic import atomic_write_bytes
from assay.store.jsonl import append_jsonl_many, encode_line, parse_lines
from assay.store.tail import FileState

T = TypeVar("T")


@dataclass
class Journal(Generic[T]):
    """One ledger file as a list of records indexed by key, kept in step with the file."""

    path: Path
    parse: Callable[[dict[str, Any]], T]
    dump: Callable[[T], dict[str, Any]]
    key: Callable[[T], str]
    aliases: Callable[[T], Iterable[str]] = lambda _: ()
    """Other names a record is found by (``find``): a source's URLs, a claim's text."""
    fsync: bool = True
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    _items: list[T] = field(default_factory=list, repr=False)
    _index: dict[str, int] = field(default_factory=dict, repr=False)
    _aliases: dict[str, int] = field(default_factory=dict, repr=False)
    _staged: dict[str, T] = field(default_factory=dict, repr=False)
    _seen: FileState | None = field(default=None, repr=False)
    _offset: int = 0  # bytes of whole lines read so far

    def items(self) -> list[T]:
        """Every record, in file order (staged changes included)."""
        with self.lock:
            self._sync()
            return list(self._items)

    def get(self, key: str) -> T | None:
        with self.lock:
            self._sync()
            index = self._index.get(key)
            return None if index is None else self._items[index]

    def find(self, alias: str) -> T | None:
        """The first record with ``alias`` among its aliases."""
        with self.lock:
            self._sync()
            index = self._aliases.get(alias)
            if index is not None and alias not in self.aliases(self._items[index]):
                self._reindex()  # that record was changed since: look again
                index = self._aliases.get(alias)
            return None if index is None else self._items[index]

    def __len__(self) -> int:
        with self.lock:
            self._sync()
            return len(self._items)

    def append(self, items: Sequence[T]) -> None:
        """Append ``items`` durably, then read back the lines just written (as the file
        has them: secrets masked)."""
        with self.lock:
            self._sync()
            before = self._seen
            written = append_jsonl_many(self.path, [self.dump(i) for i in items], fsync=self.fsync)
            self._sync(appended=(before, written))

    def stage(self, items: Iterable[T]) -> list[T]:
        """Change records in memory (by key) until ``flush``; returns those that changed."""
        with self.lock:
            self._sync()
            changed = []
            for item in items:
                key = self.key(item)
                if key not in self._index:
                    raise KeyError(f"{self.path.name} has no record {key!r}")
                if self._items[self._index[key]] != item:
                    self._items[self._index[key]] = item
                    self._alias(item, self._index[key])
                    self._staged[key] = item
                    changed.append(item)
            return changed

    def staged(self) -> list[T]:
        with self.lock:
            return list(self._staged.values())

    def flush(self) -> None:
        """Write the staged changes: one atomic replacement of the whole file."""
        with self.lock:
            self._sync()  # a record another writer appended since is kept
            if self._staged:
                self.replace(self._items)

    def replace(self, items: Sequence[T]) -> None:
        """Replace the whole file with ``items`` in one atomic step."""
        with self.lock:
            lines = [encode_line(self.dump(i)) for i in items]
            data = b"".join(line for line, _ in lines)
            atomic_write_bytes(self.path, data, fsync=self.fsync)
            kept = [
                self.parse(json.loads(line)) if masked else item
                for item, (line, masked) in zip(items, lines, strict=True)
            ]
            self._set(kept)
            self._staged.clear()
            self._offset = len(data)
            self._seen = FileState.of(self.path.stat())

    def _sync(self, appended: tuple[FileState | None, int] | None = None) -> None:
        """Bring memory in step with the file. Only this journal's own append is read as
        an append (the file grew by exactly what it wrote); any other change, by another
        writer, is read again whole, since an inode can be reused by a replacement."""
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            if self._seen is not None or self._items:
                self._set([])
                self._seen, self._offset = None, 0
            return
        seen = FileState.of(stat)
        if seen == self._seen:
            return
        ours = (
            appended is not None
            and appended[0] is not None
            and seen.inode == appended[0].inode
            and seen.size == appended[0].size + appended[1]
        )
        start = self._offset if ours else 0
        with self.path.open("rb") as handle:
            handle.seek(start)
            tail = handle.read(seen.size - start)
        whole = tail.rfind(b"\n") + 1  # a torn last line is read again once it is whole
        fresh = [self.parse(r) for r in parse_lines(tail[:whole].split(b"\n")).records]
        if not ours:
            self._set([])
        self._offset, self._seen = start + whole, seen
        self._add(fresh)
        self._reapply_staged()

    def _set(self, items: list[T]) -> None:
        self._items, self._index, self._aliases = [], {}, {}
        self._add(items)

    def _add(self, items: list[T]) -> None:
        for item in items:
            key = self.key(item)
            if key in self._index:
                self._items[self._index[key]] = item  # a later line for one id wins
            else:
                self._index[key] = len(self._items)
                self._items.append(item)
            self._alias(item, self._index[key])

    def _alias(self, item: T, index: int) -> None:
        for alias in self.aliases(item):
            self._aliases.setdefault(alias, index)

    def _reindex(self) -> None:
        self._aliases = {}
        for index, item in enumerate(self._items):
            self._alias(item, index)

    def _reapply_staged(self) -> None:
        """Staged changes outlive a re-read: they are this process's newer word."""
        for key, item in self._staged.items():
            if key in self._index:
                self._items[self._index[key]] = item
                self._alias(item, self._index[key])
