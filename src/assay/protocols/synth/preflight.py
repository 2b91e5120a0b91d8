"""The mandatory pre-flight check: the roster must be able to search before any phase.

Rules (search-synth.txt): at least two agents with ``can_search: true`` — and here a
declaration is not taken on faith: each searcher's own tool must answer a probe query with
no failure, or it does not count (the probe is the neutral ``PROBE_QUERY``, not the topic:
a working tool with no hits for an unusual topic still searches); at least one MANAGER,
who never searches;
a CHIEF_AUTHOR (``chief_author:``, or an agent with that role, else the MANAGER).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from assay.config import Settings
from assay.gather.search.probe import PROBE_QUERY
from assay.gather.session import GatherSession
from assay.protocols.synth.roster import Agent, Roster

PROBE_TIMEOUT = 15.0


def agent_settings(settings: Settings, agent: Agent) -> Settings:
    """The run's settings with the agent's own search tool (and its provider settings)."""
    update: dict[str, object] = {}
    if agent.search_tool:
        update["search"] = agent.search_tool
    if agent.searxng_url:
        update["searxng_url"] = agent.searxng_url
    return settings.model_copy(update=update) if update else settings


@dataclass
class Preflight:
    """What the check found; ``ok`` only when every rule holds."""

    roster: Roster
    searchers: list[Agent] = field(default_factory=list)
    manager: Agent | None = None
    chief: Agent | None = None
    problems: list[str] = field(default_factory=list)
    probes: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems

    def report(self) -> str:
        """Which agents were provided and what they declared, and why the roster fails."""
        lines = ["| Agent | Declared | Probe |", "|-------|----------|-------|"]
        for agent in self.roster.agents:
            probe = self.probes.get(agent.name, "not a searcher")
            lines.append(f"| {agent.name} | {agent.declared()} | {probe} |")
        return "\n".join(lines) + "\n\n" + "\n".join(f"- {p}" for p in self.problems) + "\n"


async def probe(
    session: GatherSession, query: str = PROBE_QUERY, limit: float = PROBE_TIMEOUT
) -> tuple[str | None, int]:
    """(None when the tool answered, else why it does not count; its result URLs)."""
    try:
        async with asyncio.timeout(limit):
            results = await session.provider.search([query], max_results=3)
    except TimeoutError:
        return f"no answer within {limit:g} s", 0
    except Exception as exc:  # any failure of the tool means it cannot search
        return f"{type(exc).__name__}: {str(exc)[:160]}", 0
    return None, sum(1 for r in results if r.url)


def check_roles(roster: Roster) -> Preflight:
    """Rules 2 and 3 (manager, chief author), and who declares search."""
    found = Preflight(roster)
    managers = [a for a in roster.agents if "MANAGER" in a.roles]
    if not managers:
        found.problems.append("no agent is designated MANAGER")
    else:
        found.manager = managers[0]
        for manager in managers:
            if manager.can_search or "SEARCHER" in manager.roles:
                found.problems.append(
                    f"{manager.name} is MANAGER but declares search: the MANAGER never searches"
                )
    if roster.chief_author is not None:
        found.chief = roster.by_name(roster.chief_author)
        if found.chief is None:
            found.problems.append(f"chief_author {roster.chief_author!r} is not on the roster")
    else:
        chiefs = [a for a in roster.agents if "CHIEF_AUTHOR" in a.roles]
        found.chief = chiefs[0] if chiefs else found.manager
    if found.chief is None and managers:
        found.problems.append("no CHIEF_AUTHOR could be designated")
    return found


def declared_searchers(roster: Roster) -> list[Agent]:
    return [a for a in roster.agents if a.can_search and "MANAGER" not in a.roles]


def finish(
    found: Preflight, answered: dict[str, str | None], urls: dict[str, int] | None = None
) -> Preflight:
    """Rule 1, once every declared searcher's probe is in."""
    for agent in found.roster.agents:
        if agent.name not in answered:
            continue
        failure = answered[agent.name]
        count = (urls or {}).get(agent.name, 0)
        found.probes[agent.name] = (
            f"answered {PROBE_QUERY!r} with {count} result URL(s)"
            if failure is None
            else f"failed: {failure}"
        )
        if failure is None:
            found.searchers.append(agent)
    declared = [a.name for a in found.roster.agents if a.can_search]
    if len(found.searchers) < 2:
        found.problems.append(
            f"{len(found.searchers)} agent(s) can search (declared: "
            f"{', '.join(declared) or 'none'}); at least two are required"
        )
    return found
