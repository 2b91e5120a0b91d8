"""The seven research skills: plain-text tactics shipped in the package, read with readSkill."""

from __future__ import annotations

from importlib import resources

from assay.errors import BadInputError

SKILLS = (
    "research-plan",
    "search-strategy",
    "source-quality",
    "claim-verification",
    "report-structure",
    "browser-research",
    "tool-efficiency",
)
# What a research run must read before its first search (browser-research only matters
# when a browser is available, which assay's built-in readUrl is not).
BOOTSTRAP = tuple(s for s in SKILLS if s != "browser-research")


def read_skill(name: str) -> str:
    if name not in SKILLS:
        raise BadInputError(f"unknown skill {name!r} (known: {', '.join(SKILLS)})")
    return resources.files(__package__).joinpath("skills", f"{name}.md").read_text("utf-8")


def catalog() -> str:
    """One line per skill, as injected into the system prompt."""
    lines = []
    for name in SKILLS:
        first = read_skill(name).splitlines()[0]
        lines.append(f"- {name}: {first.split(':', 1)[1].strip()}")
    return "\n".join(lines)
