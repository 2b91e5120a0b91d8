"""Search through the search tool of an MCP server the user configures.

The server is a command started over stdio (``mcp_command``) or a streamable-HTTP endpoint
(``mcp_url``, reached with the shared HTTP client). The tool is ``mcp_tool``, or else the
first tool whose input schema has a string ``query``; a result count (``max_results``,
``count``, ``limit``…) and ``time_range`` are passed when its schema declares them. A stdio
server inherits only the variables named in ``mcp_env``, resolved like keys. Answers are
read by ``common.answer_items`` (JSON results, or ``Title:``/``URL:`` text).

Each ``search`` call opens a session of its own, unless the provider is entered
(``async with provider:``, in one task): then one session and one server serve them all.
"""

from __future__ import annotations

import shlex
import tempfile
from collections.abc import Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any
from urllib.parse import urlsplit

from assay.errors import ConfigError, ProviderError
from assay.gather.search.common import answer_items, clean_text, loose_hit, rank_hits, search_each

if TYPE_CHECKING:
    import httpx2

    from assay.config import Settings
    from assay.gather.search.base import SearchResult, TimeRange
    from assay.keys import KeyStore

NAME = "mcp"
COUNT_ARGUMENTS = ("max_results", "maxResults", "num_results", "numResults", "count", "limit")
TIME_ARGUMENTS = ("time_range", "timeRange")


@dataclass(frozen=True)
class McpSearchConfig:
    """Which MCP server to reach and how: exactly one of ``command`` and ``url``."""

    command: tuple[str, ...] = ()
    url: str | None = None
    tool: str | None = None
    env_keys: tuple[str, ...] = ()
    timeout: float = 30.0

    @classmethod
    def from_settings(cls, settings: Any) -> McpSearchConfig:
        command = getattr(settings, "mcp_command", None) or ()
        words = tuple(shlex.split(command) if isinstance(command, str) else map(str, command))
        url = (getattr(settings, "mcp_url", None) or "").strip() or None
        tool = (getattr(settings, "mcp_tool", None) or "").strip() or None
        env = getattr(settings, "mcp_env", None) or ()
        env_keys = tuple(env.split(",") if isinstance(env, str) else env)
        return cls(words, url, tool, tuple(k.strip() for k in env_keys if k.strip()))

    def __post_init__(self) -> None:
        if bool(self.command) == bool(self.url):
            raise ConfigError(
                "the mcp search provider needs exactly one server: a command "
                "(--mcp-command / ASSAY_MCP_COMMAND) or a URL (--mcp-url / ASSAY_MCP_URL)"
            )
        parts = urlsplit(self.url or "")
        if self.url and (parts.scheme.lower() not in ("http", "https") or not parts.netloc):
            raise ConfigError(f"the MCP server URL must be an http(s) URL, got {self.url!r}")

    @property
    def where(self) -> str:
        return f"`{shlex.join(self.command)}`" if self.command else str(self.url)


@dataclass(frozen=True)
class _Session:
    client: Any  # mcp.Client, connected
    tool: str
    query_arg: str
    count_arg: str | None = None
    count_max: int | None = None
    time_arg: str | None = None
    time_values: frozenset[str] | None = None


class McpSearch:
    """Results from an MCP server's search tool."""

    name = NAME

    def __init__(
        self, config: McpSearchConfig, *, http: httpx2.AsyncClient, env: Mapping[str, str] = {}
    ) -> None:
        self.config = config
        self._http = http
        self._env = dict(env)
        self._stack: AsyncExitStack | None = None
        self._session: _Session | None = None

    def __repr__(self) -> str:
        return f"McpSearch(server={self.config.where})"

    async def __aenter__(self) -> McpSearch:
        self._stack, self._session = await self._open()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        stack, self._stack, self._session = self._stack, None, None
        if stack is not None:
            await self._close(stack, failing=exc_info[1] is not None)

    async def search(
        self,
        queries: list[str],
        *,
        max_results: int,
        time_range: TimeRange | None = None,
    ) -> list[SearchResult]:
        async def run(session: _Session) -> list[SearchResult]:
            return await search_each(
                queries, lambda q: self._one(session, q, max_results, time_range)
            )

        if self._session is not None:
            return await run(self._session)
        stack, session = await self._open()  # a session of its own: calls may overlap
        try:
            results = await run(session)
        except BaseException:
            await self._close(stack, failing=True)
            raise
        await self._close(stack, failing=False)
        return results

    async def _open(self) -> tuple[AsyncExitStack, _Session]:
        stack = AsyncExitStack()
        try:
            return stack, await self._prepare(await self._connect(stack))
        except BaseException:
            await stack.aclose()
            raise

    async def _close(self, stack: AsyncExitStack, *, failing: bool) -> None:
        try:
            await stack.aclose()  # never hands an exception to mcp's task groups to wrap
        except Exception as error:
            if not failing:
                raise ProviderError(f"{NAME}: closing {self.config.where} failed") from error

    async def _connect(self, stack: AsyncExitStack) -> Any:
        try:
            from mcp import Client, StdioServerParameters
            from mcp.client.stdio import stdio_client
            from mcp.client.streamable_http import streamable_http_client
        except ImportError:
            raise ConfigError(
                "the mcp provider needs the mcp package: pip install 'assay[mcp]'"
            ) from None
        errlog: IO[str] | None = None
        if self.config.command:
            errlog = stack.enter_context(tempfile.TemporaryFile("w+", errors="replace"))  # noqa: SIM115
            first, *rest = self.config.command
            params = StdioServerParameters(command=first, args=rest, env=self._env)
            transport: Any = stdio_client(params, errlog=errlog)
        else:
            transport = streamable_http_client(str(self.config.url), http_client=self._http)
        client = Client(transport, read_timeout_seconds=self.config.timeout)
        try:
            await stack.enter_async_context(client)
        except OSError as exc:
            raise ConfigError(
                f"{NAME}: cannot start {self.config.where}: {exc.strerror or exc}"
            ) from None
        except Exception as exc:
            raise ProviderError(
                f"{NAME}: could not connect to {self.config.where}: {_reason(exc)}"
                f"{_stderr_tail(errlog)}"
            ) from None
        return client

    async def _prepare(self, client: Any) -> _Session:
        tools: list[Any] = []
        cursor = None
        try:
            for _ in range(20):  # pages
                page = await client.list_tools(cursor=cursor)
                tools.extend(page.tools)
                if not (cursor := page.next_cursor):
                    break
        except Exception as exc:
            raise ProviderError(f"{NAME}: listing the tools failed: {_reason(exc)}") from None
        return _choose(client, tools, self.config.tool)

    async def _one(
        self, session: _Session, query: str, max_results: int, time_range: TimeRange | None
    ) -> list[SearchResult]:
        args: dict[str, Any] = {session.query_arg: query}
        if session.count_arg:
            args[session.count_arg] = min(max_results, session.count_max or max_results)
        if time_range and session.time_arg and time_range in (session.time_values or {time_range}):
            args[session.time_arg] = time_range
        try:
            result = await session.client.call_tool(session.tool, args)
        except Exception as exc:
            raise ProviderError(
                f"{NAME}: the search for {query!r} failed: {_reason(exc)}"
            ) from None
        texts = [b.text for b in result.content if isinstance(getattr(b, "text", None), str)]
        if result.is_error:
            said = clean_text(" ".join(texts), 200)
            raise ProviderError(f"{NAME}: tool {session.tool!r} reported an error: {said}")
        items = answer_items(result.structured_content, texts)
        if items is None:
            raise ProviderError(
                f"{NAME}: tool {session.tool!r} answered with nothing readable as results "
                "(expected JSON: a list of {url, title, snippet} or an object with results)"
            )
        return rank_hits(query, NAME, (loose_hit(item) for item in items), max_results)


def _choose(client: Any, tools: list[Any], wanted: str | None) -> _Session:
    names = ", ".join(t.name for t in tools) or "none"
    if wanted:
        tool = next((t for t in tools if t.name == wanted), None)
        if tool is None:
            raise ConfigError(f"{NAME}: the server has no tool named {wanted!r} (tools: {names})")
    else:
        tool = next((t for t in tools if _string_property(t.input_schema, "query")), None)
        if tool is None:
            raise ConfigError(
                f"{NAME}: no tool takes a string `query`; name one with --mcp-tool (tools: {names})"
            )
    schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
    raw = schema.get("properties")
    props: dict[str, Any] = raw if isinstance(raw, dict) else {}
    required = [r for r in schema.get("required", []) if isinstance(r, str)]
    strings = [p for p in props if _string_property(schema, p)]
    query_arg = next((p for p in ("query", "q", *required, *strings) if p in strings), None)
    if query_arg is None:
        raise ConfigError(f"{NAME}: tool {tool.name!r} takes no string argument to search with")
    numeric = {"integer", "number"}
    count_arg = next((p for p in COUNT_ARGUMENTS if _kind(props.get(p)) & numeric), None)
    count_max = props[count_arg].get("maximum") if count_arg else None
    time_arg = next((p for p in TIME_ARGUMENTS if "string" in _kind(props.get(p))), None)
    return _Session(
        client,
        tool.name,
        query_arg,
        count_arg,
        int(count_max) if isinstance(count_max, int | float) else None,
        time_arg,
        _enum(props[time_arg]) if time_arg else None,
    )


def _options(prop: Any) -> list[dict[str, Any]]:
    """A schema property and the alternatives its ``anyOf``/``oneOf`` offer."""
    if not isinstance(prop, dict):
        return []
    alternatives = (*prop.get("anyOf", ()), *prop.get("oneOf", ()))
    return [prop, *(o for o in alternatives if isinstance(o, dict))]


def _kind(prop: Any) -> set[str]:
    kinds = [option.get("type") for option in _options(prop)]
    return {k for kind in kinds for k in ([kind] if isinstance(kind, str) else kind or ())}


def _enum(prop: Any) -> frozenset[str] | None:
    """The string values a property is limited to, or None when it is open."""
    found = [v for o in _options(prop) for v in o.get("enum") or () if isinstance(v, str)]
    return frozenset(found) or None


def _string_property(schema: Any, name: str) -> bool:
    props = schema.get("properties") if isinstance(schema, dict) else None
    return isinstance(props, dict) and "string" in _kind(props.get(name))


def _reason(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(dict.fromkeys(_reason(e) for e in exc.exceptions))
    return clean_text(str(exc), 200) or type(exc).__name__


def _stderr_tail(errlog: IO[str] | None) -> str:
    if errlog is None or errlog.closed:
        return ""
    errlog.flush()
    errlog.seek(0)
    lines = [line for line in errlog.read().splitlines() if line.strip()]
    return f"; its stderr ends: {clean_text(lines[-1], 200)}" if lines else ""


def create(settings: Settings, *, http: httpx2.AsyncClient, keys: KeyStore) -> McpSearch:
    """The ``mcp`` entry point: the server comes from the settings (see McpSearchConfig)."""
    config = McpSearchConfig.from_settings(settings)
    env = {name: keys.require(name, "the MCP search server") for name in config.env_keys}
    return McpSearch(config, http=http, env=env)
