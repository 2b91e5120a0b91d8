"""Source controls: the domain rule, the date window and reliability kinds, in process;
and the fetcher refusing an excluded domain on the first hop, on a redirect and from the
cache, over real loopback HTTP (names mapped onto lab addresses by a resolver)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from assay.config import FetchSettings
from assay.domains import BadDomain, DomainRule, parse_domain
from assay.errors import PolicyViolation
from assay.gather.dates import outside, published_span, window_since
from assay.gather.fetch import Fetcher
from assay.gather.reliability import reading_bonus, reliability_of
from assay.gather.screen import SourceControls
from assay.gather.search.base import SearchResult
from assay.gather.search.web_search import QueryOutcome, WebSearchOutcome
from assay.lab import Lab


@pytest.mark.parametrize(
    ("url", "excluded"),
    [
        ("http://example.com/a", True),
        ("https://www.example.com/a", True),
        ("https://a.b.example.com:8443/x", True),
        ("HTTPS://WWW.EXAMPLE.COM./x", True),
        ("https://notexample.com/", False),
        ("https://example.com.evil.org/", False),
        ("https://example.org/", False),
    ],
)
def test_an_excluded_domain_covers_its_subdomains_only(url: str, excluded: bool) -> None:
    rule = DomainRule.parse(exclude=["example.com"])
    assert (rule.refusal(url) is not None) is excluded


@pytest.mark.parametrize(
    ("entry", "domain"),
    [
        ("example.com", "example.com"),
        ("https://www.BBC.co.uk/news", "bbc.co.uk"),  # www. is the site's web host
        ("*.example.com", "example.com"),
        ("forum.example.com", "forum.example.com"),  # any other subdomain stays itself
        ("www.co.uk", "www.co.uk"),  # under a public suffix, www is a registrable name
        ("bücher.de", "xn--bcher-kva.de"),
        ("127.0.0.2", "127.0.0.2"),
        ("gov", "gov"),
    ],
)
def test_entries_are_read_as_people_write_them(entry: str, domain: str) -> None:
    assert parse_domain(entry) == domain


@pytest.mark.parametrize("entry", ["", "not a domain", "a..b", "-x.com", "http://"])
def test_an_entry_that_is_no_domain_is_refused(entry: str) -> None:
    with pytest.raises(BadDomain, match="not a domain name"):
        parse_domain(entry)


def test_include_keeps_only_its_domains_and_exclude_wins() -> None:
    rule = DomainRule.parse(include=["who.int", "gov"], exclude=["cdc.gov"])
    assert rule.refusal("https://www.who.int/news") is None
    assert rule.refusal("https://www.nasa.gov/") is None
    assert "excluded" in (rule.refusal("https://www.cdc.gov/flu") or "")
    assert "not among --include-domain" in (rule.refusal("https://example.com/") or "")


def test_dates_as_providers_write_them() -> None:
    may = (date(2024, 5, 1), date(2024, 5, 31))
    assert published_span("2024-05") == may
    assert published_span("2024-05-03T23:30:00-02:00") == (date(2024, 5, 4), date(2024, 5, 4))
    assert published_span("Tue, 10 Jun 2025 08:00:00 GMT") == (date(2025, 6, 10),) * 2
    assert published_span("2024") == (date(2024, 1, 1), date(2024, 12, 31))
    assert published_span("last week") is None and published_span(None) is None
    assert not outside(may, date(2024, 5, 20), None)  # part of May is in the window
    assert outside(may, date(2024, 6, 1), None) and outside(may, None, date(2024, 4, 30))
    today = date(2026, 12, 1)
    assert window_since(date(2026, 11, 30), today) == "day"
    assert window_since(date(2026, 11, 1), today) == "month"
    assert window_since(date(2026, 1, 1), today) == "year"
    assert window_since(date(2020, 1, 1), today) is None


def result(url: str, published: str | None = None, rank: int = 1) -> SearchResult:
    return SearchResult("q", url, url, "snippet", "stub", rank, published)


def test_screening_drops_off_domain_and_out_of_window_results_and_keeps_undated() -> None:
    controls = SourceControls(DomainRule.parse(exclude=["example.com"]), date(2024, 1, 1), None)
    outcome = WebSearchOutcome(
        (
            QueryOutcome(
                "q",
                (
                    result("https://www.example.com/a", "2025-01-01"),
                    result("https://old.test/b", "2023-06-01"),
                    result("https://new.test/c", "2024-03-01"),
                    result("https://undated.test/d"),
                ),
            ),
        )
    )
    screened = controls.screen(outcome)
    assert [r.url for r in screened.outcome.results] == [
        "https://new.test/c",
        "https://undated.test/d",
    ]
    assert (screened.off_domain, screened.out_of_window, screened.undated) == (1, 1, 1)
    assert controls.provider_window(None, today=date(2024, 6, 1)) == "year"
    assert controls.provider_window("week") == "week"  # what the caller asked wins


def test_reliability_kinds_by_domain() -> None:
    assert reliability_of("https://www.nasa.gov/moon") == "primary"
    assert reliability_of("https://en.wikipedia.org/wiki/Moon") == "reference"
    assert reliability_of("https://plato.stanford.edu/x") == "reference"  # beats "edu"
    assert reliability_of("https://cs.stanford.edu/x") == "primary"
    assert reliability_of("https://www.reuters.com/world") == "news"
    assert reliability_of("https://old.reddit.com/r/x") == "forum"
    assert reliability_of("https://notreddit.com/") == "unknown"
    assert reading_bonus("https://www.nasa.gov/") > 0 > reading_bonus("https://reddit.com/")


# The fetcher: every hop meets the rule, before anything (robots.txt included) is sent.


def _fetch(url: str, rule: DomainRule, names: dict[str, str], cache: Path | None = None) -> str:
    async def resolve(host: str) -> Sequence[str]:
        return [names[host]]

    async def run() -> str:
        async with Fetcher(
            FetchSettings(retries=0),
            allow_hosts=["127.0.0.0/8"],
            resolver=resolve,
            domains=rule,
            cache_path=cache,
        ) as fetcher:
            return (await fetcher.fetch(url)).final_url

    return asyncio.run(run())


def _some_page(lab: Lab) -> str:
    return next(iter(lab.site_pages[1])).slug


def test_an_excluded_domain_is_never_dialled(lab: Lab) -> None:
    port = urlsplit(lab.sites[1]).port
    url = f"http://www.example.com:{port}/pages/{_some_page(lab)}"
    names = {"www.example.com": urlsplit(lab.sites[1]).hostname or ""}
    before = len(lab.hits())
    with pytest.raises(PolicyViolation, match=r"excluded \(--exclude-domain example.com\)"):
        _fetch(url, DomainRule.parse(exclude=["example.com"]), names)
    assert lab.hits()[before:] == []  # not even robots.txt
    with pytest.raises(PolicyViolation, match="not among --include-domain"):
        _fetch(url, DomainRule.parse(include=["example.org"]), names)
    assert lab.hits()[before:] == []


def test_a_redirect_into_an_excluded_domain_is_refused(lab: Lab) -> None:
    port = urlsplit(lab.sites[0]).port
    url = f"http://news.example:{port}/fault/redirect-private"  # → http://127.0.0.1:PORT/pages/
    before = len(lab.hits())
    with pytest.raises(PolicyViolation) as refused:
        _fetch(url, DomainRule.parse(exclude=["127.0.0.1"]), {"news.example": "127.0.0.2"})
    assert refused.value.reason.startswith(f"redirect to http://127.0.0.1:{port}/pages/")
    assert refused.value.reason.endswith(
        "domain 127.0.0.1 is excluded (--exclude-domain 127.0.0.1)"
    )
    reached = {site for site, _, _ in lab.hits()[before:]}
    assert f"http://127.0.0.1:{port}" not in reached


def test_a_cached_page_of_an_excluded_domain_is_not_served(lab: Lab, tmp_path: Path) -> None:
    port = urlsplit(lab.sites[1]).port
    url = f"http://www.example.com:{port}/pages/{_some_page(lab)}"
    names = {"www.example.com": urlsplit(lab.sites[1]).hostname or ""}
    cache = tmp_path / "cache.sqlite"
    assert _fetch(url, DomainRule(), names, cache) == url  # cached under no rule
    with pytest.raises(PolicyViolation, match="excluded"):
        _fetch(url, DomainRule.parse(exclude=["example.com"]), names, cache)


def test_the_report_lists_each_sources_kind(tmp_path: Path) -> None:
    from assay.report.claims_report import render_claims_report
    from assay.store.sources import SourceLedger

    ledger = SourceLedger(tmp_path, fsync=False)
    common = {"text": "Text.", "content_type": "text/html", "accessed_at": "2026-12-01T00:00Z"}
    ledger.add(url="https://en.wikipedia.org/wiki/A", final_url="https://en.wikipedia.org/wiki/A",
               title="A", reliability="reference", **common)  # fmt: skip
    ledger.add(url="http://lab.test/b", final_url="http://lab.test/b", title="B",
               reliability="unknown", **common)  # fmt: skip
    ledger.add(url="http://old.test/c", final_url="http://old.test/c", title="C", **common)
    report = render_claims_report("T", [], ledger.records(), written_by="test")
    assert (
        "1. A — <https://en.wikipedia.org/wiki/A> (reference source · accessed 2026-12-01)"
        in report
    )
    assert "2. B — <http://lab.test/b> (accessed 2026-12-01)" in report  # unknown: not said
    assert "3. C — <http://old.test/c> (accessed 2026-12-01)" in report  # a run from before


def test_the_sources_kind_reorders_equally_relevant_results_only() -> None:
    from assay.protocols.research.rounds import reading_order

    targets = ["How tall is the Halvorsen Lighthouse?"]
    same = "The Halvorsen Lighthouse is 41 metres tall."
    offers = [("Lighthouse", "https://www.reddit.com/r/a"), ("Lighthouse", "https://nasa.gov/a")]
    snippets = {url: same for _, url in offers}
    assert [url for _, url in reading_order(offers, targets, snippets)] == [
        "https://nasa.gov/a",
        "https://www.reddit.com/r/a",
    ]
    snippets["https://nasa.gov/a"] = "Kessler sourdough is a rye bread."  # off the question
    assert reading_order(offers, targets, snippets)[0][1] == "https://www.reddit.com/r/a"
