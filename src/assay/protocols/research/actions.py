"""The agent's decisions: each turn is one action from a typed union.

Native tool calls are unreliable with small local models, so the agent never "calls a
tool": it returns one of these objects as structured output and the harness runs it.
``Finish`` is the turn without a tool call that ends the loop.

The ``action`` tag is required in the JSON schema, so constrained decoding makes a model
write it; a reply that leaves it out anyway (the local 1.5B model did, with the tag
optional) is still read: the tag is inferred from the fields the reply has.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag

from assay.models.output import QUERY_CHARS, written

SkillName = Literal[
    "research-plan",
    "search-strategy",
    "source-quality",
    "claim-verification",
    "report-structure",
    "browser-research",
    "tool-efficiency",
]


def _tag_required(schema: dict[str, Any]) -> None:
    schema["required"] = ["action", *[f for f in schema.get("required", []) if f != "action"]]


class BaseAction(BaseModel):
    """An action; its ``action`` tag has a default for code but is required in the schema."""

    model_config = ConfigDict(json_schema_extra=_tag_required)
    tag: ClassVar[str]


class ReadSkill(BaseAction):
    tag: ClassVar[str] = "read_skill"
    action: Literal["read_skill"] = "read_skill"
    name: SkillName


class WritePlan(BaseAction):
    tag: ClassVar[str] = "write_plan"
    action: Literal["write_plan"] = "write_plan"
    questions: Annotated[list[str], Field(min_length=1, max_length=4), written(120, (1, 4))]
    approach: Annotated[str, Field(min_length=5, max_length=600), written(300)]


class WebSearch(BaseAction):
    tag: ClassVar[str] = "web_search"
    action: Literal["web_search"] = "web_search"
    queries: Annotated[list[str], Field(min_length=3, max_length=10), written(QUERY_CHARS, (3, 10))]


class ReadUrl(BaseAction):
    tag: ClassVar[str] = "read_url"
    action: Literal["read_url"] = "read_url"
    url: str


class GrepWorkspace(BaseAction):
    tag: ClassVar[str] = "grep_workspace"
    action: Literal["grep_workspace"] = "grep_workspace"
    pattern: str = Field(min_length=1, max_length=200)


class ListWorkspaceDir(BaseAction):
    tag: ClassVar[str] = "list_workspace_dir"
    action: Literal["list_workspace_dir"] = "list_workspace_dir"
    path: str = "."


class Todo(BaseAction):
    tag: ClassVar[str] = "todo"
    action: Literal["todo"] = "todo"
    items: list[str] = Field(min_length=1, max_length=10)


class ReadFile(BaseAction):
    tag: ClassVar[str] = "read_file"
    action: Literal["read_file"] = "read_file"
    path: str


class Finish(BaseAction):
    tag: ClassVar[str] = "finish"
    action: Literal["finish"] = "finish"
    answer: str = Field(max_length=600)


class RequestFullResearch(BaseAction):
    tag: ClassVar[str] = "request_full_research"
    action: Literal["request_full_research"] = "request_full_research"
    reason: str = Field(min_length=5, max_length=300)


_BY_FIELD = {
    "name": "read_skill",
    "questions": "write_plan",
    "approach": "write_plan",
    "queries": "web_search",
    "url": "read_url",
    "pattern": "grep_workspace",
    "items": "todo",
    "answer": "finish",
    "reason": "request_full_research",
}


def _tag_of(value: Any) -> str | None:
    """The action's tag, or the one its fields imply when a model left the tag out."""
    if isinstance(value, BaseModel):
        return str(getattr(value, "action", ""))
    if not isinstance(value, dict):
        return None
    if "action" in value:
        return str(value["action"])
    for key in value:
        if key in _BY_FIELD:
            return _BY_FIELD[key]
    return "list_workspace_dir" if "path" in value else None


def action_union(*members: type[BaseAction]) -> Any:
    tagged = tuple(Annotated[m, Tag(m.tag)] for m in members)
    return Annotated[Union[tagged], Discriminator(_tag_of)]  # noqa: UP007 - built at runtime


Action = (
    ReadSkill
    | WritePlan
    | WebSearch
    | ReadUrl
    | GrepWorkspace
    | ListWorkspaceDir
    | Todo
    | ReadFile
    | Finish
    | RequestFullResearch
)
