"""The SSRF guard over real loopback HTTP: names mapped onto lab addresses by a resolver."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from assay.config import FetchSettings
from assay.errors import FetchError, PolicyViolation
from assay.gather.fetch import FetchedPage, Fetcher
from assay.lab import Lab, serve_lab

pytestmark = pytest.mark.paced  # what these tests prove includes the real pacing


@pytest.fixture(scope="module")
def home_lab(lab_corpus_dir: Path) -> Iterator[Lab]:
    """Two sites on 127.0.0.1 and 127.0.0.2, so a redirect to 127.0.0.1 has somewhere to go."""
    with serve_lab(lab_corpus_dir, sites=2, first_address="127.0.0.1") as running:
        yield running


def mapping_resolver(names: dict[str, str]) -> tuple[list[str], object]:
    asked: list[str] = []

    async def resolve(host: str) -> Sequence[str]:
        asked.append(host)
        if host not in names:
            raise OSError(f"no such name {host}")
        return [names[host]]

    return asked, resolve


def fetch(url: str, *, allow: Sequence[str], names: dict[str, str] | None = None) -> FetchedPage:
    _, resolver = mapping_resolver(names or {})

    async def run() -> FetchedPage:
        settings = FetchSettings(retries=0)
        async with Fetcher(settings, allow_hosts=allow, resolver=resolver) as fetcher:  # type: ignore[arg-type]
            return await fetcher.fetch(url)

    return asyncio.run(run())


def test_a_public_looking_host_redirecting_to_loopback_is_refused(lab: Lab) -> None:
    port = urlsplit(lab.sites[0]).port
    url = f"http://news.example:{port}/fault/redirect-private"
    before = len(lab.hits())
    with pytest.raises(PolicyViolation) as info:
        fetch(url, allow=["127.0.0.2"], names={"news.example": "127.0.0.2"})
    assert info.value.url == url
    assert info.value.reason.startswith(f"redirect to http://127.0.0.1:{port}/pages/")
    assert info.value.reason.endswith("address 127.0.0.1 is loopback and not allow-listed")
    targets = [target for _, target, _ in lab.hits()[before:]]
    assert targets == ["/robots.txt", "/fault/redirect-private"]  # reached via the name


def test_the_same_redirect_goes_through_when_127_0_0_1_is_allow_listed(home_lab: Lab) -> None:
    port = home_lab.port
    url = f"http://news.example:{port}/fault/redirect-private"
    before = len(home_lab.hits())
    try:
        page = fetch(url, allow=["127.0.0.2", "127.0.0.1"], names={"news.example": "127.0.0.2"})
        assert page.final_url.startswith(f"http://127.0.0.1:{port}/pages/")
    except FetchError as exc:  # the slug may not exist on the other site: a 404 is fine
        assert not isinstance(exc, PolicyViolation), exc.reason
        assert exc.reason.endswith("HTTP 404")
    reached = {site for site, _, _ in home_lab.hits()[before:]}
    assert f"http://127.0.0.1:{port}" in reached  # the connection really went to 127.0.0.1


def test_a_loopback_address_that_is_not_allow_listed_is_refused(lab: Lab) -> None:
    before = len(lab.hits())
    with pytest.raises(PolicyViolation) as info:
        fetch(f"{lab.sites[0]}/", allow=[])
    assert info.value.reason == "address 127.0.0.2 is loopback and not allow-listed"
    assert info.value.url == f"{lab.sites[0]}/"  # the page asked for, not its robots.txt
    assert len(lab.hits()) == before  # refused before any connection was made


def test_an_ip_spelled_as_one_number_reaches_the_address_it_names(lab: Lab) -> None:
    port = urlsplit(lab.sites[0]).port
    slug = lab.site_pages[0][0].slug
    page = fetch(f"http://2130706434:{port}/pages/{slug}", allow=["127.0.0.2"])  # 127.0.0.2
    assert page.status == 200 and b"<article" in page.body
    with pytest.raises(PolicyViolation, match=re.escape("address 127.0.0.3 is loopback")):
        fetch(f"http://0x7f.0.0.3:{port}/pages/{slug}", allow=["127.0.0.2"])


def test_a_name_is_dialled_at_the_address_our_resolver_checked(lab: Lab) -> None:
    # "lab.test" does not exist in DNS: the fetch can only succeed by connecting to the
    # address the guard resolved and checked (site 2), never by resolving the name again.
    port = urlsplit(lab.sites[1]).port
    slug = lab.site_pages[1][0].slug
    before = len(lab.hits())
    page = fetch(
        f"http://lab.test:{port}/pages/{slug}", allow=["lab.test"], names={"lab.test": "127.0.0.3"}
    )
    assert page.status == 200
    assert {site for site, _, _ in lab.hits()[before:]} == {lab.sites[1]}


def test_a_name_resolving_to_a_private_address_is_refused_by_the_resolver_answer() -> None:
    with pytest.raises(PolicyViolation, match=re.escape("address 169.254.169.254 is link-local")):
        fetch(
            "http://metadata.example/latest/",
            allow=[],
            names={"metadata.example": "169.254.169.254"},
        )


def test_an_unresolvable_name_is_a_fetch_error() -> None:
    with pytest.raises(FetchError, match=re.escape("could not resolve nowhere.example")) as info:
        fetch("http://nowhere.example/", allow=[])
    assert not isinstance(info.value, PolicyViolation)


def test_every_guarded_client_shares_one_tls_context_that_verifies_certificates() -> None:
    import ssl

    from assay.gather.fetch.guard import guarded_client, verifying_context

    async def contexts() -> list[ssl.SSLContext]:
        found = []
        for _ in range(2):
            async with guarded_client([]) as client:
                pool = client._transport._pool  # type: ignore[attr-defined]
                found.append(pool._ssl_context)
        return found

    first, second = asyncio.run(contexts())
    assert first is second is verifying_context()  # made once: loading the CAs costs ~35 ms
    assert first.verify_mode == ssl.CERT_REQUIRED and first.check_hostname
