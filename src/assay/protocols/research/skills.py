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


CONDENSED_CHARS = 400


def condensed(name: str) -> str:
    """A skill's tactics as a small model can use them: each bullet cut to its first 90
    characters, joined, at most ``CONDENSED_CHARS`` characters."""
    bullets: list[str] = []
    for line in read_skill(name).splitlines()[1:]:
        if line.startswith("- "):
            bullets.append(line[2:].strip())
        elif line.startswith("  ") and bullets:
            bullets[-1] += " " + line.strip()
    clauses = [b if len(b) <= 90 else b[:90].rsplit(" ", 1)[0] + "…" for b in bullets]
    text = "; ".join(clauses)
    return text if len(text) <= CONDENSED_CHARS else text[: CONDENSED_CHARS - 1] + "…"
