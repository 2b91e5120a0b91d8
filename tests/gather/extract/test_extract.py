"""Extraction: HTML (trafilatura + fallback), PDF, JSON, plain text; decoding never raises."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

from assay.errors import FetchError
from assay.gather.extract import Extracted, extract, extract_html, extract_pdf
from tests.paths import TESTS

DATA = TESTS / "data" / "extract"


@pytest.fixture(scope="module")
def article() -> Extracted:
    return extract((DATA / "article.html").read_bytes(), "text/html", url="https://example.org/a")


def page(body: str, head: str = "") -> str:
    return f"<!DOCTYPE html><html><head>{head}</head><body>{body}</body></html>"


# --- HTML ------------------------------------------------------------------------------


def test_article_metadata_from_meta_tags(article: Extracted) -> None:
    assert article.title == "Tidal Power in Small Harbours"
    assert article.author == "Mara Olsen"
    assert article.date == "2023-04-05"
    assert article.content_type == "text/html"
    assert article.extractor.startswith("trafilatura ")


def test_article_keeps_headings_paragraphs_and_lists_as_markdown(article: Extracted) -> None:
    lines = article.text.splitlines()
    assert "# Tidal Power in Small Harbours" in lines
    assert "## How the turbines work" in lines
    assert "- Rotors turn at walking pace, which protects fish." in lines
    assert "- Maintenance happens at slack water." in lines
    assert "Kirkwall spent four years and two million pounds" in article.text


def test_article_drops_navigation_footer_and_asides(article: Extracted) -> None:
    for boilerplate in ("Energy section", "About the editors", "All rights reserved",
                        "Privacy policy", "wind farms and wave power"):  # fmt: skip
        assert boilerplate not in article.text


def test_article_drops_scripts_styles_and_hidden_elements(article: Extracted) -> None:
    for invisible in ("SCRIPT-TEXT", "STYLE-TEXT", "NOSCRIPT-TEXT", "HIDDEN-ATTRIBUTE-TEXT",
                      "HIDDEN-STYLE-TEXT", "HIDDEN-ARIA-TEXT", "color"):  # fmt: skip
        assert invisible not in article.text


def test_author_and_date_from_json_ld_which_is_read_not_run() -> None:
    ld = {
        "@context": "https://schema.org",
        "@type": "NewsArticle",
        "headline": "Harbour council approves second turbine",
        "author": {"@type": "Person", "name": "Ian Brodie"},
        "datePublished": "2024-02-29",
    }
    head = f'<script type="application/ld+json">{json.dumps(ld)}</script>'
    body = "<article><p>The council voted seven to two in favour of the second unit.</p></article>"
    result = extract_html(page(body, head))
    assert result.title == "Harbour council approves second turbine"
    assert result.author == "Ian Brodie"
    assert result.date == "2024-02-29"
    assert "@context" not in result.text and "seven to two" in result.text


def test_title_falls_back_to_the_single_h1_then_the_title_element() -> None:
    sphinx = extract_html(
        page('<h1>Only heading<a class="headerlink" href="#h">¶</a></h1><p>Text.</p>')
    )
    assert sphinx.title == "Only heading"
    assert "Only heading\n" in sphinx.text and "¶" not in sphinx.text
    two_h1 = page("<h1>One</h1><h1>Two</h1>", "<title>Page title</title>")
    assert extract_html(two_h1).title == "Page title"


def test_date_from_a_time_element_or_the_url() -> None:
    byline = '<p>By Ann <time datetime="2022-05-01T08:00">1 May</time></p><p>Body text.</p>'
    assert extract_html(page(byline)).date == "2022-05-01"
    url = "https://news.example.org/2021/07/14/harbour-vote"
    assert extract_html(page("<p>Body text of the story.</p>"), url=url).date == "2021-07-14"


def test_no_date_is_guessed_from_free_text() -> None:
    body = (
        "<p>Copyright 1999. Updated on 3 March 2021 by the team.</p>"
        "<pre>2005-03-23 23:47:11,663 - app - INFO - started</pre>"
        "<p>datetime.fromisoformat('2011-11-04')</p>"
    )
    assert extract_html(page(body)).date is None


def test_tiny_page_falls_back_to_visible_text_never_empty() -> None:
    only_title = extract_html("<html><head><title>Only a title</title></head><body></body></html>")
    assert only_title.text == "# Only a title"
    assert only_title.extractor == "html-fallback"
    nav_only = extract_html(page('<nav><a href="/">Home</a> <a href="/c">Contact</a></nav>'))
    assert nav_only.text == "Home Contact"


def test_fallback_skips_hidden_and_script_text_too() -> None:
    body = (
        "<h2>Status</h2><ul><li>open</li></ul><div hidden>SECRET</div>"
        "<p style='visibility: hidden'>SECRET</p><script>SECRET</script><noscript>SECRET</noscript>"
    )
    result = extract_html(page(body, "<title>Status</title>"))
    assert "SECRET" not in result.text
    assert "Status" in result.text and "open" in result.text


@pytest.mark.parametrize("html", ["", "   ", "<html></html>", "<p>", "<body> </body>"])
def test_empty_markup_gives_empty_text(html: str) -> None:
    assert extract_html(html) == Extracted(None, None, None, "", "text/html", "html-fallback")


@pytest.mark.parametrize("html", ["\x00\x01", "<" * 100, "<html><body><p>\ud800</p>", "</>" * 9])
def test_broken_markup_does_not_raise(html: str) -> None:
    assert extract_html(html).content_type == "text/html"


def test_deep_nesting_does_not_raise() -> None:
    extract_html("<div>" * 3000 + "deep" + "</div>" * 3000)
    assert "shallow" in extract_html(page("<div>" * 150 + "shallow" + "</div>" * 150)).text


def test_xhtml_with_an_xml_declaration() -> None:
    xhtml = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml">'
        "<head><title>SELECT</title></head><body><h2>SELECT</h2><p>Retrieve rows.</p></body></html>"
    )
    result = extract(xhtml.encode(), "application/xhtml+xml")
    assert result.content_type == "application/xhtml+xml"
    assert "Retrieve rows." in result.text
    assert result.title == "SELECT"


# --- decoding --------------------------------------------------------------------------


LATIN1_PAGE = page("<p>Le café de la gare, déjà célèbre, ouvre à l'aube.</p>")


def test_charset_from_the_header() -> None:
    body = LATIN1_PAGE.encode("latin-1")
    assert "café" in extract(body, "text/html", charset="ISO-8859-1").text
    assert "déjà" in extract(body, "text/html; charset=iso-8859-1").text


def test_charset_from_a_meta_tag() -> None:
    body = LATIN1_PAGE.replace("<head>", '<head><meta charset="iso-8859-1">').encode("latin-1")
    assert "café" in extract(body, "text/html").text
    http_equiv = '<head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'
    body = LATIN1_PAGE.replace("<head>", http_equiv).encode("cp1252")
    assert "célèbre" in extract(body, "text/html").text


def test_header_charset_wins_over_meta_and_unknown_labels_are_skipped() -> None:
    body = LATIN1_PAGE.replace("<head>", '<head><meta charset="iso-8859-1">').encode("utf-8")
    assert "café" in extract(body, "text/html", charset="utf-8").text
    assert "café" in extract(body.replace(b"iso-8859-1", b"utf-8"), "text/html", "x-bogus").text


def test_latin1_label_means_windows_1252_as_in_browsers() -> None:
    body = page("<p>\x93Quoted\x94 words</p>").encode("latin-1")
    assert "\u201cQuoted\u201d" in extract(body, "text/html", charset="latin1").text


def test_invalid_bytes_are_replaced_never_raised() -> None:
    body = page("<p>Broken bytes: here.</p>").encode().replace(b"here", b"\xff\xfe\x80here\xc3")
    result = extract(body, "text/html")
    assert "\ufffd" in result.text and "here" in result.text
    assert extract(b"\xc3\x28 plain", "text/plain").text == "\ufffd( plain"


def test_utf8_bom_wins() -> None:
    body = b"\xef\xbb\xbf" + "<p>naïve café</p>".encode()
    assert "naïve café" in extract(body, "text/html", charset="latin-1").text


# --- JSON and plain text ---------------------------------------------------------------


def test_json_is_pretty_printed_in_a_fenced_block() -> None:
    result = extract(b'{"name":"caf\\u00e9","ids":[1,2]}', "application/json")
    assert result.text == '```json\n{\n  "name": "café",\n  "ids": [\n    1,\n    2\n  ]\n}\n```'
    assert (result.extractor, result.content_type) == ("json", "application/json")


def test_structured_json_suffix_and_backticks_inside() -> None:
    result = extract(b'{"code": "```py"}', "application/ld+json; charset=utf-8")
    assert result.text.startswith("````json\n") and result.text.endswith("\n````")
    assert result.content_type == "application/ld+json"


def test_invalid_json_is_kept_as_text() -> None:
    result = extract(b"{not json", "application/json")
    assert (result.text, result.extractor) == ("{not json", "plain")


@pytest.mark.parametrize(
    "media", ["text/plain", "text/markdown", "text/csv", "application/xml", "application/rss+xml"]
)
def test_text_passes_through_as_decoded(media: str) -> None:
    text = "# Notes\n\n  indented <b>not html</b>\n\ttabs, é\n"
    result = extract(text.encode("utf-8"), media)
    assert result == Extracted(None, None, None, text, media, "plain")


def test_plain_text_honours_its_charset() -> None:
    assert extract("é".encode("cp1252"), "text/plain", charset="windows-1252").text == "é"


def test_untyped_bodies_are_sniffed() -> None:
    assert extract(b"<!doctype html><p>Sniffed page.</p>", "").content_type == "text/html"
    assert extract(b'{"a": 1}', "application/octet-stream").extractor == "json"
    assert extract(b"just words", "").content_type == "text/plain"


def test_binary_types_are_refused() -> None:
    with pytest.raises(FetchError, match="no text extractor for image/png"):
        extract(b"\x89PNG\r\n\x1a\n\x00\x00", "image/png", url="https://example.org/x.png")
    with pytest.raises(FetchError):
        extract(b"\x00\x01\x02binary", "application/octet-stream")
    with pytest.raises(FetchError):
        extract(b"<svg xmlns='http://www.w3.org/2000/svg'/>", "image/svg+xml")


# --- PDF -------------------------------------------------------------------------------


def make_pdf(pages: list[str], info: str = "") -> bytes:
    """A minimal valid PDF: one Helvetica text line per page, an optional /Info dictionary."""
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(len(pages)))
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for i, text in enumerate(pages):
        stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET"
        objects.append(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792]"
            f" /Resources << /Font << /F1 3 0 R >> >> /Contents {5 + 2 * i} 0 R >>"
        )
        objects.append(f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream")
    if info:
        objects.append(info)
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    trailer = f"/Size {len(objects) + 1} /Root 1 0 R" + (
        f" /Info {len(objects)} 0 R" if info else ""
    )
    out += f"trailer\n<< {trailer} >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def test_pdf_text_pages_and_metadata() -> None:
    info = (
        "<< /Title (Tide Tables 2024) /Author (Harbour Office) /CreationDate (D:20240102030405Z) >>"
    )
    result = extract_pdf(make_pdf(["High water at six.", "Low water at noon."], info))
    assert result.text.split("\f") == ["High water at six.\n", "\nLow water at noon."]
    assert (result.title, result.author, result.date) == (
        "Tide Tables 2024",
        "Harbour Office",
        "2024-01-02",
    )
    assert result.content_type == "application/pdf"
    assert result.extractor.startswith("pypdfium2 ")


def test_pdf_without_metadata_and_through_dispatch() -> None:
    data = make_pdf(["Only page."])
    result = extract(data, "application/pdf")
    assert (result.text, result.title, result.date) == ("Only page.", None, None)
    assert extract(data, "application/octet-stream").content_type == "application/pdf"


@pytest.mark.parametrize("data", [b"", b"%PDF-1.4\ngarbage", b"not a pdf at all"])
def test_corrupt_pdf_raises_fetch_error(data: bytes) -> None:
    with pytest.raises(FetchError, match="unreadable PDF") as caught:
        extract(data, "application/pdf", url="https://example.org/t.pdf")
    assert caught.value.url == "https://example.org/t.pdf"


def test_truncated_pdf_raises_fetch_error() -> None:
    data = make_pdf(["Page one."])
    with pytest.raises(FetchError, match="unreadable PDF"):
        extract_pdf(data[: len(data) // 3])


# --- threads ---------------------------------------------------------------------------


def test_extraction_is_safe_from_several_threads() -> None:
    bodies = [
        ((DATA / "article.html").read_bytes(), "text/html"),
        (make_pdf(["Threaded page."]), "application/pdf"),
        (LATIN1_PAGE.encode(), "text/html"),
    ] * 8
    expected = [extract(body, media) for body, media in bodies]
    with ThreadPoolExecutor(max_workers=6) as pool:
        assert list(pool.map(lambda item: extract(*item), bodies)) == expected


def test_a_control_character_after_a_dropped_script_is_no_crash() -> None:
    # dropping the <script> moves its tail text, which lxml refuses while it holds a C0
    # control; found by the fuzz test (tests/gather/test_fuzz.py)
    extracted = extract(b"<p>Tide tables<script></script>\x1f for the estuary</p>", "text/html")
    assert "\x1f" not in extracted.text and "estuary" in extracted.text
