"""Code mode's reading order: which files define what the question asks about.

Each grep is one concept (its spellings, ``|``-separated). A file scores, per concept it
matches, the concept's rarity (a spelling found in every file says little: its weight is
the log of how few files match), a little for mentioning it and more where the file
*defines* it: a spelling in its path
(``net/retry.py`` for "retry"), on a ``def``/``class`` line or a name being assigned,
or in the file's opening lines, where a module says what it is for. The files that match
the most concepts, most rarely and most definingly, are read first; once the best match's
folder is listed, the matching files beside it rank a little higher (code keeps one
concern's modules together), and so do the matching files a file already read names, as a
reader follows a module's references.

A code file's claims are drawn from its prose (``prose_view``): its docstrings and
comments, with the code blanked out, so a claim is a sentence its author wrote, never a
line of code read as one.

A claim's ``path:line`` is where its quote starts in the file, so the answer and the
findings cite the line a reader opens.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from assay.protocols.research.workspace import GrepHit

HEAD_LINES = 25
"""A file's opening lines: its module docstring or header comment."""
_MENTIONS = 0.5
_DEFINES = 1.5
_IN_PATH = 1.5
_IN_HEAD = 0.5
_NEIGHBOUR = 1.3
_REFERENCED = 1.5


def _spellings(pattern: str) -> list[str]:
    return [p.strip().lower() for p in pattern.split("|") if p.strip()]


def defines(line: str, spellings: list[str]) -> bool:
    """A ``def``/``class`` line, or an assignment, whose name contains a spelling."""
    return definition_rank(line, spellings) > 0


def definition_rank(line: str, spellings: list[str]) -> float:
    """How squarely ``line`` defines a spelling: 0 when it does not; a class above a
    function above an assignment, and a name that is the spelling (``Pacer`` for
    ``pacer``) above one that merely contains it."""
    match = re.match(r"\s*(?:async\s+)?(def|class|fn|func|function)\s+(\w+)", line)
    if match is not None:
        kind, name = (3.0 if match.group(1) == "class" else 2.0), match.group(2)
    else:
        assigned = re.match(r"\s*(?:self\.)?([A-Za-z_]\w*)\s*(?::[^=]*)?=", line)
        if assigned is None:
            return 0.0
        kind, name = 1.0, assigned.group(1)
    lowered = name.lower().strip("_")
    joined = [s.replace(" ", "_").replace("-", "_") for s in spellings]
    close = max((len(s) / len(lowered) for s in joined if s and s in lowered), default=0.0)
    return kind + close if close else 0.0


@dataclass
class CodeMap:
    """The grep hits of a run, by pattern, and the files ranked by them."""

    files_total: int
    hits: dict[str, list[GrepHit]] = field(default_factory=dict)
    weights: dict[str, float] = field(default_factory=dict)
    folder: str = ""
    """The folder of the best match, once listed: its files that match rank higher."""
    referenced: set[str] = field(default_factory=set)
    """Files a file already read names (``robots.py``, ``from .limits import``)."""

    def note_references(self, text: str) -> None:
        """Mark the matching files ``text`` names by file name or Python import."""
        for path in {h.path for hits in self.hits.values() for h in hits}:
            name = PurePosixPath(path).name
            module = PurePosixPath(path).stem
            if module.startswith("_") or len(module) < 3:
                continue
            quoted = re.escape(module)
            imports = rf"\bfrom [\w.]*\b{quoted} import\b|\bimport [\w.]*\b{quoted}\b"
            if re.search(rf"(?<![\w/]){re.escape(name)}\b", text) or re.search(imports, text):
                self.referenced.add(path)

    def add(self, pattern: str, found: list[GrepHit], weight: float = 1.0) -> None:
        """A grep's hits; ``weight`` is its concept's (``concepts.Concept.weight``)."""
        self.hits[pattern] = found
        self.weights[pattern] = weight

    def ranked(self) -> list[str]:
        """Every file some grep found, best first (ties: the path, so runs repeat)."""
        scores: dict[str, float] = {}
        for pattern, found in self.hits.items():
            spellings = _spellings(pattern)
            by_file: dict[str, list[GrepHit]] = {}
            for hit in found:
                by_file.setdefault(hit.path, []).append(hit)
            rarity = math.log((self.files_total + 1) / (len(by_file) + 1)) + 0.1
            rarity *= self.weights.get(pattern, 1.0)
            for path, lines in by_file.items():
                worth = _MENTIONS
                lowered = path.lower()
                if any(s.replace(" ", "_") in lowered for s in spellings):
                    worth += _IN_PATH
                if any(defines(h.text, spellings) for h in lines):
                    worth += _DEFINES
                if any(h.line <= HEAD_LINES for h in lines):
                    worth += _IN_HEAD
                scores[path] = scores.get(path, 0.0) + rarity * worth
        for path in scores:
            if self.folder and path.startswith(self.folder + "/"):
                scores[path] *= _NEIGHBOUR
            if path in self.referenced:
                scores[path] *= _REFERENCED
        return sorted(scores, key=lambda p: (-scores[p], p))

    def definitions(self, paths: list[str], per_pattern: int = 4) -> list[tuple[str, GrepHit]]:
        """(pattern, hit) for the lines of ``paths`` that define a pattern's spelling:
        ``per_pattern`` at most, the squarest definitions first, two per file at most."""
        order = {p: n for n, p in enumerate(paths)}
        found = []
        for pattern, hits in self.hits.items():
            spellings = _spellings(pattern)
            ranked = sorted(
                (h for h in hits if h.path in order and defines(h.text, spellings)),
                key=lambda h: (-definition_rank(h.text, spellings), order[h.path], h.line),
            )
            per_file: dict[str, int] = {}
            for hit in ranked:
                if per_file.get(hit.path, 0) < 2 and sum(per_file.values()) < per_pattern:
                    per_file[hit.path] = per_file.get(hit.path, 0) + 1
                    found.append((pattern, hit))
        return found

    def first_line(self, path: str) -> str:
        """The first line any grep found in ``path`` (what the offer shows)."""
        lines = [h for found in self.hits.values() for h in found if h.path == path]
        return min(lines, key=lambda h: h.line).text if lines else path


def line_of(text: str, quote: str, start: int) -> int:
    """The 1-based line of ``text`` where ``quote`` starts (at ``start``, or found again)."""
    if text[start : start + len(quote)] != quote:
        found = text.find(quote)
        start = found if found >= 0 else start
    return text.count("\n", 0, max(0, min(start, len(text)))) + 1


CODE_SUFFIXES = frozenset(
    [
        ".py",
        ".pyi",
        ".js",
        ".jsx",
        ".ts",
        ".tsx",
        ".go",
        ".rs",
        ".c",
        ".h",
        ".cc",
        ".cpp",
        ".hpp",
        ".java",
        ".kt",
        ".rb",
        ".php",
        ".cs",
        ".swift",
        ".scala",
        ".sh",
        ".lua",
    ]
)
_COMMENT = re.compile(r"\s*(?:#|//|/\*|\*|--)")


def prose_view(path: str, text: str) -> str:
    """``text`` with every character that is not prose made a space, newlines kept, so
    offsets into it are offsets into ``text``. Prose is a Python file's docstrings (found
    by parsing it) and, in any code file, its comment lines; any other file is prose."""
    suffix = PurePosixPath(path).suffix.lower()
    if suffix not in CODE_SUFFIXES:
        return text
    lines = text.splitlines(keepends=True)
    keep = [bool(_COMMENT.match(line)) for line in lines]
    for first, last in _docstrings(text) if suffix in (".py", ".pyi") else []:
        for number in range(first, last + 1):
            keep[number - 1] = True
    shown = []
    for line, kept in zip(lines, keep, strict=True):
        if not kept:
            shown.append("".join(ch if ch in "\r\n" else " " for ch in line))
        else:
            shown.append(re.sub(r'[rRbBuU]?(?:"""|\'\'\')', lambda m: " " * len(m.group()), line))
    return "".join(shown)


def _docstrings(text: str) -> list[tuple[int, int]]:
    """(first line, last line) of each module, class and function docstring."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
                and first.end_lineno is not None
            ):
                found.append((first.lineno, first.end_lineno))
    return found
