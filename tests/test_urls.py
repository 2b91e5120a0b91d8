"""canonical_url and registrable_domain: one spelling per page, one owner per host."""

from __future__ import annotations

import pytest

from assay.urls import canonical_url, is_tracking_parameter, registrable_domain


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        # scheme and host are case-insensitive; the path is not
        ("HTTPS://Example.COM/Path", "https://example.com/Path"),
        # default ports go, others stay
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("http://example.com:443/a", "http://example.com:443/a"),
        ("https://example.com:8443/a", "https://example.com:8443/a"),
        # the fragment goes; an empty path is "/"
        ("https://example.com#top", "https://example.com/"),
        ("https://example.com/a#section-2", "https://example.com/a"),
        ("https://example.com", "https://example.com/"),
        ("https://example.com?", "https://example.com/"),
        # a trailing dot on the host is the same host
        ("https://example.com./a", "https://example.com/a"),
        # surrounding whitespace is not part of a URL
        ("  https://example.com/a \n", "https://example.com/a"),
        # dot segments are resolved (RFC 3986 5.2.4)
        ("https://example.com/a/./b/../c", "https://example.com/a/c"),
        ("https://example.com/a/b/..", "https://example.com/a/"),
        ("https://example.com/../../a", "https://example.com/a"),
        ("https://example.com/a.b/c.html", "https://example.com/a.b/c.html"),
        # a trailing slash is significant
        ("https://example.com/a/", "https://example.com/a/"),
        # user info is kept
        ("https://user:pw@Example.com/", "https://user:pw@example.com/"),
        # IPv6 literals keep their brackets, lose a default port
        ("http://[2001:DB8::1]:80/x", "http://[2001:db8::1]/x"),
    ],
)
def test_canonical_url_basics(given: str, expected: str) -> None:
    assert canonical_url(given) == expected


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("https://example.com/a?utm_source=x&id=7&utm_medium=email", "https://example.com/a?id=7"),
        ("https://example.com/a?UTM_Campaign=x&id=7", "https://example.com/a?id=7"),
        ("https://example.com/?gclid=abc", "https://example.com/"),
        ("https://example.com/?fbclid=abc&page=2", "https://example.com/?page=2"),
        ("https://example.com/?mc_cid=1&mc_eid=2&q=x", "https://example.com/?q=x"),
        ("https://example.com/?ref=hn&ref_src=twsrc&igshid=1", "https://example.com/"),
        ("https://example.com/?yclid=1&msclkid=2&_hsenc=3&_hsmkt=4", "https://example.com/"),
        # the remaining parameters keep their order and spelling, blanks included
        ("https://example.com/?b=2&a=1&c=", "https://example.com/?b=2&a=1&c="),
        ("https://example.com/?q=a+b&flag", "https://example.com/?q=a+b&flag"),
        # empty pieces between separators go
        ("https://example.com/?a=1&&b=2&", "https://example.com/?a=1&b=2"),
        # a parameter that merely contains a tracking name stays
        (
            "https://example.com/?preference=1&utmost=2",
            "https://example.com/?preference=1&utmost=2",
        ),
    ],
)
def test_canonical_url_drops_tracking_parameters(given: str, expected: str) -> None:
    assert canonical_url(given) == expected


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        # escaped unreserved characters are decoded
        ("https://example.com/%7Euser/%41bc", "https://example.com/~user/Abc"),
        # other escapes keep their meaning, in upper case
        ("https://example.com/a%2fb", "https://example.com/a%2Fb"),
        ("https://example.com/?q=a%2bb", "https://example.com/?q=a%2Bb"),
        # characters that must be escaped are escaped (UTF-8)
        ("https://example.com/a b", "https://example.com/a%20b"),
        ("https://example.com/caf\u00e9", "https://example.com/caf%C3%A9"),
        ("https://example.com/?q=caf\u00e9", "https://example.com/?q=caf%C3%A9"),
        # a lone percent sign is escaped itself
        ("https://example.com/100%", "https://example.com/100%25"),
        # already-canonical escapes are left alone
        ("https://example.com/caf%C3%A9", "https://example.com/caf%C3%A9"),
    ],
)
def test_canonical_url_normalises_percent_encoding(given: str, expected: str) -> None:
    assert canonical_url(given) == expected


def test_canonical_url_writes_hosts_in_idna_form() -> None:
    assert canonical_url("https://B\u00fccher.example/x") == "https://xn--bcher-kva.example/x"
    assert canonical_url("https://xn--bcher-kva.example/x") == "https://xn--bcher-kva.example/x"
    assert canonical_url("https://\u4f8b\u3048.jp/") == "https://xn--r8jz45g.jp/"


def test_equivalent_spellings_share_one_canonical_form() -> None:
    spellings = [
        "https://www.Example.com:443/docs/./guide?utm_source=news&lang=en#intro",
        "https://www.example.com/docs/guide?lang=en",
        "HTTPS://WWW.EXAMPLE.COM/docs/x/../guide?lang=en&fbclid=1",
        "https://www.example.com/docs/%67uide?lang=en",
    ]
    assert {canonical_url(s) for s in spellings} == {"https://www.example.com/docs/guide?lang=en"}


def test_different_pages_stay_different() -> None:
    assert canonical_url("http://example.com/a") != canonical_url("https://example.com/a")
    assert canonical_url("https://example.com/a") != canonical_url("https://example.com/A")
    assert canonical_url("https://example.com/a?x=1") != canonical_url("https://example.com/a?x=2")
    assert canonical_url("https://example.com/?a=1&b=2") != canonical_url(
        "https://example.com/?b=2&a=1"
    )


@pytest.mark.parametrize("given", ["", "not a url", "/relative/path", "mailto:", "http://"])
def test_canonical_url_leaves_what_has_no_host(given: str) -> None:
    assert canonical_url(f" {given} ") == given


def test_canonical_url_survives_a_bad_port() -> None:
    assert canonical_url("http://example.com:99999/") == "http://example.com:99999/"


def test_canonical_url_is_idempotent() -> None:
    for url in [
        "https://B\u00fccher.example:443/a/../b c?utm_x=1&q=%7e#f",
        "http://[::1]:8080/x/./y?z",
        "https://example.com/%zz",
    ]:
        once = canonical_url(url)
        assert canonical_url(once) == once


def test_tracking_parameter_names() -> None:
    assert is_tracking_parameter("utm_source")
    assert is_tracking_parameter("GCLID")
    assert is_tracking_parameter("utm%5Fsource")
    assert not is_tracking_parameter("id")
    assert not is_tracking_parameter("reference")


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("example.com", "example.com"),
        ("www.example.com", "example.com"),
        ("a.b.c.example.com", "example.com"),
        ("WWW.Example.COM.", "example.com"),
        ("news.bbc.co.uk", "bbc.co.uk"),
        ("bbc.co.uk", "bbc.co.uk"),
        ("www.gov.uk", "www.gov.uk"),
        ("www.abc.net.au", "abc.net.au"),
        ("www.smh.com.au", "smh.com.au"),
        ("www.stuff.co.nz", "stuff.co.nz"),
        ("www.u-tokyo.ac.jp", "u-tokyo.ac.jp"),
        ("www.gob.mx", "www.gob.mx"),
        ("www.sat.gob.mx", "sat.gob.mx"),
        ("folha.uol.com.br", "uol.com.br"),
        ("www.economie.gouv.fr", "economie.gouv.fr"),
        ("www.lemonde.fr", "lemonde.fr"),
        ("sub.domain.example.de", "example.de"),
        ("alice.github.io", "alice.github.io"),
        ("docs.alice.github.io", "alice.github.io"),
        ("myproject.readthedocs.io", "myproject.readthedocs.io"),
        ("someone.blogspot.com", "someone.blogspot.com"),
        ("github.com", "github.com"),
        ("www.foo.org.es", "foo.org.es"),
        ("bar.org.es", "bar.org.es"),
        ("a.example.co.uk", "example.co.uk"),
        ("www.city.kawasaki.jp", "city.kawasaki.jp"),
        ("B\u00fccher.example", "xn--bcher-kva.example"),
    ],
)
def test_registrable_domain(host: str, expected: str) -> None:
    assert registrable_domain(host) == expected


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("co.uk", "co.uk"),
        ("github.io", "github.io"),
        ("localhost", "localhost"),
        ("LOCALHOST", "localhost"),
        ("127.0.0.1", "127.0.0.1"),
        ("127.0.0.2", "127.0.0.2"),
        ("[2001:db8::1]", "2001:db8::1"),
        ("", ""),
    ],
)
def test_registrable_domain_edge_cases(host: str, expected: str) -> None:
    assert registrable_domain(host) == expected
