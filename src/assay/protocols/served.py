"""What a run asked of a server (``assay serve``, ``assay mcp``) may choose, and with whose key.

The rule: a server never lends its credentials to a destination the request chose.

- A request picks its model, search provider, model endpoint (``base_url``) and SearXNG
  instance only among what the server was started with, or what its operator offered
  besides (``--allow-model``, ``--allow-search``, ``--allow-base-url``,
  ``--allow-searxng-url``). Anything else is refused before anything is sent anywhere.
- The server's ``base_url`` belongs to its own model's provider: another offered model
  goes to its provider's own endpoint unless the request names an offered one, so one
  provider's key never travels to an endpoint configured for another.
- Or the request brings its own key (``api_key``) for its own model and endpoint: the
  model then gets that key and nothing else (``keys.BroughtKey``), and its endpoint is
  dialled through the address guard under the server's ``allow_hosts``, since the request
  chose it. Such a run is never resumed here (the key is not kept, and the server's own
  key must not go where the run's endpoint is).

Both servers call ``Served.call``; ``ServedChoices.resolve`` refuses, with a one-line
``BadInputError``, whatever the rule does not allow, and a search provider no plugin
registered with the ``ConfigError`` that names the registered ones (a 400, not a run).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from pydantic import ValidationError

from assay.config import Settings
from assay.errors import BadInputError, ConfigError
from assay.gather.search.registry import known_search_provider
from assay.protocols.contract import ProtocolResult
from assay.protocols.launch import StartRun, call_protocol
from assay.store.eventlog import Listener

_BUDGETS = ("budget_tokens", "budget_time")


def normalise_url(url: str) -> str:
    """An endpoint as compared: scheme and host lower-cased, default port and trailing
    slash dropped (``HTTP://Lab:80/v1/`` and ``http://lab/v1`` are one endpoint)."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    default = {"http": 80, "https": 443}.get(scheme)
    netloc = host if port in (None, default) else f"{host}:{port}"
    return f"{scheme}://{netloc}{parts.path.rstrip('/')}"


def normalise_model(spec: str) -> str:
    from assay.models.registry import split_model_name

    try:
        provider, name = split_model_name(spec)
    except ConfigError as exc:
        raise BadInputError(str(exc)) from None
    return f"{provider}:{name}"


def _provider(spec: str | None) -> str | None:
    return spec.partition(":")[0].strip().lower() if spec else None


def _listed(values: Iterable[str]) -> str:
    shown = sorted(values)
    return ", ".join(shown) if shown else "none"


@dataclass(frozen=True)
class Served:
    """A request as the server will run it: the effective settings, and the key the
    request brought (None: the server's own keys, for destinations the server chose)."""

    settings: Settings
    key: str | None = None

    async def call(self, request: StartRun, listener: Listener | None = None) -> ProtocolResult:
        if self.key is None:
            return await call_protocol(request, self.settings, listener)
        from assay.gather.fetch.guard import guarded_client
        from assay.keys import BroughtKey
        from assay.models.registry import model_from_settings

        async with guarded_client(self.settings.allow_hosts, timeout=600.0) as http:
            model = model_from_settings(self.settings, BroughtKey(self.key), http_client=http)
            try:
                return await call_protocol(request, self.settings, listener, model=model)
            finally:
                if model is not None:
                    await model.aclose()


@dataclass(frozen=True)
class ServedChoices:
    """The models, search providers and endpoints requests to one server may pick."""

    models: frozenset[str]
    searches: frozenset[str]
    base_urls: frozenset[str]
    searxng_urls: frozenset[str]

    @classmethod
    def offered(
        cls,
        settings: Settings,
        *,
        models: Iterable[str] = (),
        searches: Iterable[str] = (),
        base_urls: Iterable[str] = (),
        searxng_urls: Iterable[str] = (),
    ) -> ServedChoices:
        """What ``settings`` configure, plus what the operator offers besides."""
        own_models = [settings.model] if settings.model else []
        own_base = [settings.base_url] if settings.base_url else []
        own_searxng = [settings.searxng_url] if settings.searxng_url else []
        return cls(
            models=frozenset(normalise_model(m) for m in [*own_models, *models]),
            searches=frozenset(known_search_provider(s) for s in [settings.search, *searches]),
            base_urls=frozenset(normalise_url(u) for u in [*own_base, *base_urls]),
            searxng_urls=frozenset(normalise_url(u) for u in [*own_searxng, *searxng_urls]),
        )

    def resolve(self, request: StartRun, base: Settings) -> Served:
        """How ``request`` runs on a server configured with ``base``; BadInputError when
        it asks for something the server does not offer."""
        self._check_search(request.search, request.searxng_url)
        update: dict[str, Any] = {}
        if request.search is not None:
            update["search"] = request.search
        if request.searxng_url is not None:
            update["searxng_url"] = request.searxng_url
        key = request.api_key.get_secret_value() if request.api_key is not None else None
        if key is not None:
            if not request.model:
                raise BadInputError("api_key needs the model it is for (model: PROVIDER:MODEL)")
            if request.protocol == "synth":
                raise BadInputError("synth runs use the server's models only; drop api_key")
            update.update(model=request.model, base_url=request.base_url)
        elif request.model is not None or request.base_url is not None:
            model = request.model or base.model
            update.update(model=model, base_url=self._base_url(model, request.base_url, base))
        for name in _BUDGETS:
            if getattr(request, name) is not None:
                update[name] = getattr(request, name)
        update.update(_source_controls(request, base))
        if request.language is not None:  # the language a run writes in lends nothing
            update["language"] = request.language
        return Served(_updated(base, update), key)

    def check_recorded(self, recorded: Settings, base: Settings) -> None:
        """Refuse to resume a run whose recorded model, endpoint or search this server
        does not offer (a run that brought its own key, or one started elsewhere)."""
        self._check_search(
            recorded.search if recorded.search != base.search else None,
            recorded.searxng_url if recorded.searxng_url != base.searxng_url else None,
        )
        if recorded.model is None:
            return  # the extractive engine: no model, no key
        if recorded.model != base.model:
            self._check_model(recorded.model)
        expected = base.base_url if _provider(recorded.model) == _provider(base.model) else None
        if recorded.base_url is not None and recorded.base_url != expected:
            self._check_base_url(recorded.base_url)

    def _base_url(self, model: str | None, requested: str | None, base: Settings) -> str | None:
        if model is not None and model != base.model:
            self._check_model(model)
        if requested is not None:
            self._check_base_url(requested)
            return requested
        # The server's endpoint is for its own model's provider (and that provider's key).
        return base.base_url if _provider(model) == _provider(base.model) else None

    def _check_model(self, model: str) -> None:
        if normalise_model(model) not in self.models:
            raise BadInputError(
                f"model {model!r} is not offered by this server (offered: "
                f"{_listed(self.models)}); send api_key to use a model with your own key"
            )

    def _check_base_url(self, url: str) -> None:
        if normalise_url(url) not in self.base_urls:
            raise BadInputError(
                f"base_url {url!r} is not an endpoint this server offers; the server's keys "
                "never go to an endpoint a request names: send api_key with it"
            )

    def _check_search(self, search: str | None, searxng_url: str | None) -> None:
        if search is not None and known_search_provider(search) not in self.searches:
            raise BadInputError(
                f"search provider {search!r} is not offered by this server "
                f"(offered: {_listed(self.searches)})"
            )
        if searxng_url is not None and normalise_url(searxng_url) not in self.searxng_urls:
            raise BadInputError(
                f"searxng_url {searxng_url!r} is not a SearXNG instance this server offers "
                f"(offered: {_listed(self.searxng_urls)})"
            )


def _source_controls(request: StartRun, base: Settings) -> dict[str, Any]:
    """A request's domains and dates narrow the server's, never widen them: its excludes
    join the server's, its includes must lie within the server's includes (when it has
    any), and its window must lie within the server's."""
    from assay.domains import covers

    update: dict[str, Any] = {}
    if request.exclude_domains:
        update["exclude_domains"] = [*base.exclude_domains, *request.exclude_domains]
    if request.include_domains:
        if base.include_domains:
            wider = [
                d for d in request.include_domains
                if not any(covers(own, d) for own in base.include_domains)
            ]  # fmt: skip
            if wider:
                raise BadInputError(
                    f"include_domains {', '.join(wider)} is outside this server's "
                    f"({', '.join(base.include_domains)})"
                )
        update["include_domains"] = request.include_domains
    if request.since is not None:
        update["since"] = max(request.since, base.since) if base.since else request.since
    if request.until is not None:
        update["until"] = min(request.until, base.until) if base.until else request.until
    return update


def _updated(base: Settings, update: dict[str, Any]) -> Settings:
    """``base`` with ``update`` applied, each value validated as the setting it sets."""
    if not update:
        return base
    try:
        checked = Settings.model_validate({**base.model_dump(), **update})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "request"
        raise BadInputError(f"{where}: {first['msg']}") from None
    return base.model_copy(update={k: getattr(checked, k) for k in update})
