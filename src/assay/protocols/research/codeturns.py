"""Code-agent mode's turns (``ResearchHarness``'s workspace half): listWorkspaceDir,
grepWorkspace, todo and readFile over a local folder.

The question's concepts are grepped in their code spellings (concepts.py), each grep's
files ranked by how squarely they define them (codemap.py); a file read is a source like a
web page, its claims drawn from its prose (docstrings and comments) with the concepts'
code words, and a claim's relevance is the share of the concepts it speaks of when that is
more than the fitted relevance says (``code-concepts-v1``: the fitted model reads English
questions against English pages, and a docstring says "pacing" for "rate limit").
"""

from __future__ import annotations

from typing import Literal

from assay.events import ToolOpenUrl, ToolWorkspace
from assay.protocols.research.actions import Action, GrepWorkspace, ListWorkspaceDir, Todo
from assay.protocols.research.codemap import CodeMap, prose_view
from assay.protocols.research.concepts import (
    CONCEPT_METHOD,
    Concept,
    code_question,
    concept_share,
    concepts,
)
from assay.protocols.research.policy import AgentState
from assay.protocols.research.synthesis import where_lines
from assay.protocols.research.workspace import Workspace
from assay.reading.relevance import Relevance
from assay.store.runs import Run

CODE_CLAIMS = 5
"""Claims drawn from a workspace file: its docstrings explain more than a web page's lead."""
PAGE_CLAIMS = 3


class WorkspaceTurns:
    """The workspace half of ``ResearchHarness`` (agent.py), which sets these attributes."""

    run: Run
    state: AgentState
    workspace: Workspace | None
    codemap: CodeMap
    concepts: list[Concept]
    question: str
    _claims_per_page: int

    def _warn(self, message: str, code: str) -> None:
        raise NotImplementedError  # the harness warns

    async def _extract(self, source_id: str, text: str, title: str | None) -> None:
        raise NotImplementedError  # the harness extracts

    def _start_code(self, workspace: Workspace | None) -> None:
        """The concepts, the code map and the question in code words (none on the web)."""
        self.codemap = CodeMap(len(workspace.files()) if workspace else 0)
        self.concepts = concepts(self.state.topic) if workspace is not None else []
        self._claims_per_page = CODE_CLAIMS if workspace is not None else PAGE_CLAIMS
        self.question = self.state.topic  # what a page's claims are drawn for
        if workspace is not None:  # in the code's words for the question's concepts
            self.question = code_question(self.state.topic)

    def _code_relevance(self, text: str, found: Relevance) -> Relevance:
        """``found``, or in a workspace the concepts' share when it is higher."""
        if self.workspace is None:
            return found
        share = concept_share(self.concepts, text)
        if share > found.score:
            return Relevance(round(share, 3), CONCEPT_METHOD, self.state.topic)
        return found

    def _where(self) -> list[str]:
        """The report's "Where in the code": the concepts' definitions in the files read."""
        names = {c.pattern: c.name for c in self.concepts}
        ranked = set(self.codemap.ranked())
        return where_lines(self.codemap, names, [p for p in self.state.read if p in ranked])

    def _workspace_action(self, action: Action) -> None:
        workspace = self.workspace
        if workspace is None:
            return
        if isinstance(action, ListWorkspaceDir):
            entries = workspace.list_dir(action.path)
            self.state.listed.add(action.path)
            self.state.offered += [(e, e) for e in entries if not e.endswith("/")]
            best = self.codemap.ranked()[:1]
            if best and action.path != "." and best[0].startswith(action.path.rstrip("/") + "/"):
                self.codemap.folder = action.path.rstrip("/")
                self._rank_offers()
            self._workspace_event("listWorkspaceDir", action.path, len(entries))
        elif isinstance(action, GrepWorkspace):
            hits = workspace.grep(action.pattern)
            self.state.grepped.add(action.pattern)
            weight = next((c.weight for c in self.concepts if c.pattern == action.pattern), 1.0)
            self.codemap.add(action.pattern, hits, weight)
            # Files that match go first, listed or not, the ones that define the question's
            # concepts first (codemap.py): they are the ones worth reading.
            self._rank_offers()
            self._workspace_event("grepWorkspace", action.pattern, len({h.path for h in hits}))
        elif isinstance(action, Todo):
            self.state.todo = list(action.items)
            self.state.notes.append("todo: " + "; ".join(action.items))
            self._workspace_event("todo", " | ".join(action.items), len(action.items))

    def _rank_offers(self) -> None:
        ranked = self.codemap.ranked()
        rest = [o for o in self.state.offered if o[1] not in set(ranked)]
        self.state.offered = [(self.codemap.first_line(p), p) for p in ranked] + rest

    async def _read_file(self, path: str) -> None:
        if self.workspace is None or path in self.state.read:
            return
        self.state.read.append(path)
        read = self.workspace.read(path, self.run.source_ledger)
        if read is None:
            self._warn(f"{path}: not a readable text file", "workspace")
            return
        record, text = read
        self.codemap.note_references(text)
        self._rank_offers()
        self.run.events.emit(
            ToolOpenUrl(
                url=record.url, title=record.title, snapshot=record.snapshot, source_id=record.id
            )
        )
        await self._extract(record.id, prose_view(path, text), record.title)

    def _workspace_event(
        self, tool: Literal["grepWorkspace", "listWorkspaceDir", "todo"], argument: str, count: int
    ) -> None:
        self.run.events.emit(ToolWorkspace(tool=tool, argument=argument, result_count=count))
