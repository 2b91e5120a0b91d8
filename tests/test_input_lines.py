"""A bad line in a file handed to ``assay batch``, ``assay eval`` or ``assay index add``: named
as FILE:LINE with what is wrong, skipped, the other lines kept — never a traceback, never
silent, never the whole file dropped."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from assay.batch import read_jobs
from assay.cli import app
from assay.errors import BadInputError
from assay.evaluation.dataset import load_dataset
from assay.gather.index import LocalIndex

runner = CliRunner()
LIGHTHOUSE = "When was the Halvorsen Lighthouse completed?"
NOT_UTF8 = b'{"id": "latin", "question": "Caf\xe9?"}'  # Latin-1, as an old editor saves it


def write_lines(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def question_line(ident: str) -> bytes:
    return json.dumps({"id": ident, "question": LIGHTHOUSE}).encode()


@pytest.fixture
def local_search(isolated_home: Path, tmp_path: Path) -> list[str]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "lighthouse.md").write_text(
        "# Halvorsen Lighthouse\n\nThe Halvorsen Lighthouse was completed in 1874.\n"
    )
    with LocalIndex(isolated_home / "index.sqlite") as index:
        index.add_paths([docs])
    return ["--search", "local", "--quiet"]


def test_batch_names_a_line_that_is_not_utf8_and_runs_the_others(
    tmp_path: Path, local_search: list[str]
) -> None:
    path = write_lines(tmp_path / "q.jsonl", [question_line("a"), NOT_UTF8, question_line("b")])
    jobs, bad = read_jobs(path)
    assert [j.id for j in jobs] == ["a", "b"]
    assert [b.describe(path) for b in bad] == [f"{path}:2: not UTF-8 text (byte 0xe9 at column 33)"]
    result = runner.invoke(app, ["batch", str(path), "--protocol", "ask", *local_search])
    assert result.exit_code == 1, result.output  # a bad line: exit 1, as for any bad line
    assert isinstance(result.exception, SystemExit), result.exception  # no traceback
    assert f"error: {path}:2: not UTF-8 text" in result.output
    rows = [json.loads(line) for line in (tmp_path / "q.results.jsonl").read_text().splitlines()]
    assert sorted((r["id"], r["status"]) for r in rows) == [("a", "done"), ("b", "done")]


def test_eval_names_bad_lines_keeps_the_others_and_records_them(
    tmp_path: Path, local_search: list[str]
) -> None:
    good = {"question": LIGHTHOUSE, "answer": "1874"}
    path = write_lines(
        tmp_path / "d.jsonl",
        [json.dumps(good | {"id": "a"}).encode(), NOT_UTF8, b"[1, 2]", b'{"id": "nothing"}',
         json.dumps(good | {"id": "b"}).encode()],
    )  # fmt: skip
    dataset = load_dataset(path)
    assert [item.id for item in dataset.items] == ["a", "b"]
    assert dataset.problems == (
        f"{path}:2: not UTF-8 text (byte 0xe9 at column 33)",
        f"{path}:3: expected a JSON object, got list",
        f"{path}:4: no question text",
    )
    assert [i.id for i in load_dataset(path, offset=4).items] == ["b"]  # places did not move
    out = tmp_path / "ev"
    result = runner.invoke(app, ["eval", str(path), "--out", str(out), *local_search])
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    assert f"error: {path}:2: not UTF-8 text" in result.output
    data = json.loads((out / "eval.json").read_text())
    assert data["bad_lines"] == list(dataset.problems)
    assert sorted(r["id"] for r in data["rows"]) == ["a", "b"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'[{"question": "Caf\xe9?"}]', "not UTF-8 text (byte 0xe9 at line 1, column 19)"),
        (b'[{"question": "x"},', "not valid JSON"),
        (b'{"question": "x"}\n{"question": "y"}', None),
    ],
)
def test_a_json_dataset_that_cannot_be_read_is_one_line(
    tmp_path: Path, content: bytes, message: str | None
) -> None:
    path = tmp_path / "d.json"
    path.write_bytes(content)
    if message is None:  # not an array: read as JSONL, which it is
        assert len(load_dataset(path).items) == 2
        return
    with pytest.raises(BadInputError, match=re.escape(message)):
        load_dataset(path)
    result = runner.invoke(app, ["eval", str(path)])
    assert result.exit_code == 2 and message.split(" (")[0] in result.output
    assert "Traceback" not in result.output


def test_jsonl_whose_first_line_is_a_list_is_not_taken_for_an_array(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "d.jsonl", [b"[1, 2]", b'{"question": "x"}'])
    dataset = load_dataset(path)
    assert len(dataset.items) == 1
    assert dataset.problems == (f"{path}:1: expected a JSON object, got list",)


def test_index_add_names_every_line_of_the_wrong_shape(tmp_path: Path) -> None:
    good = [json.dumps({"title": t, "text": f"{t} text."}).encode() for t in ("One", "Two")]
    path = write_lines(
        tmp_path / "docs.jsonl",
        [good[0], b"[1,2,3]", b"null", b'{"text":5}', b'{"title": "no text"}', b'{"text": "  "}',
         b'{"text": "Caf\xe9"}', b"{broken", good[1]],
    )  # fmt: skip
    with LocalIndex(tmp_path / "index.sqlite") as index:
        report = index.add_paths([path])
        assert report.documents == 2
        assert sorted(d.title for d in index.documents()) == ["One", "Two"]
    assert report.notes == [
        f'{path}:2: expected an object with a "text", got a list; skipped',
        f'{path}:3: expected an object with a "text", got null; skipped',
        f'{path}:4: "text" must be a string or a list of strings, not a number; skipped',
        f'{path}:5: no "text" in the object; skipped',
        f'{path}:6: "text" is empty; skipped',
        f"{path}:7: not UTF-8 text (byte 0xe9 at column 14); skipped",
        f"{path}:8: not JSON (Expecting property name enclosed in double quotes at column 2);"
        " skipped",
    ]
    result = runner.invoke(app, ["index", "add", str(path), "--home", str(tmp_path / "h")])
    assert result.exit_code == 0, result.output
    assert result.output.count("warning: ") == 7 and "indexed 2 documents" in result.output


def test_index_add_names_the_wrong_items_of_a_json_file(tmp_path: Path) -> None:
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps([{"title": "A", "text": "alpha"}, 5, {"text": ["ok", 3]}]))
    mapped = tmp_path / "map.json"
    mapped.write_text(json.dumps({"Bees": ["Bees make honey."], "Empty": "", "Odd": {"x": 1}}))
    with LocalIndex(tmp_path / "index.sqlite") as index:
        report = index.add_paths([listed, mapped])
        assert sorted(d.title for d in index.documents()) == ["A", "Bees"]
    assert report.notes == [
        f'{listed}: item 2: expected an object with a "text", got a number; skipped',
        f'{listed}: item 3: "text" must be a string or a list of strings, not a list; skipped',
        f"{mapped}: 'Empty': the text is empty; skipped",
        f"{mapped}: 'Odd': the text must be a string or a list of strings, not an object; skipped",
    ]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.lists(
        st.one_of(
            st.binary(max_size=40),
            st.recursive(
                st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                lambda inner: (
                    st.lists(inner, max_size=3)
                    | st.dictionaries(st.sampled_from(["id", "question", "text", "title"]), inner)
                ),
                max_leaves=6,
            ).map(lambda v: json.dumps(v).encode()),
        ),
        max_size=10,
    )
)
def test_every_nonblank_line_is_read_or_named_by_all_three_readers(lines: list[bytes]) -> None:
    from assay.gather.records import json_records
    from assay.input_lines import json_lines

    data = b"\n".join(line.replace(b"\n", b" ") for line in lines)
    nonblank = sum(1 for chunk in data.split(b"\n") if chunk.strip())
    assert len(list(json_lines(data))) == nonblank
    records, problems = json_records(data, Path("f.jsonl"), lines=True)
    assert len(records) + len(problems) == nonblank
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "q.jsonl"
        path.write_bytes(data)
        jobs, bad = read_jobs(path)
        assert len(jobs) + len(bad) == nonblank
        if nonblank:
            try:
                dataset = load_dataset(path)
            except BadInputError as exc:  # no usable item, or a broken array: one line
                assert str(exc).startswith(f"{path}: ") and "\n" not in str(exc)
            else:
                assert len(dataset.items) + len(dataset.problems) == nonblank
