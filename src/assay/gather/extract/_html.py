"""HTML → markdown main text, title, author and date.

The page is parsed once by lxml (no network, no entities fetched, comments and processing
instructions dropped) and stripped of everything a reader would not see: scripts, styles,
``<noscript>``, ``<template>``, and elements that are ``hidden``, ``aria-hidden`` or styled
``display:none``/``visibility:hidden``. JSON-LD blocks stay, as data: author and date are
read from them, nothing is run. trafilatura then finds the main text; when it finds none
(tiny pages) a plain walk of the visible text is used, so a page with text is never empty.

Metadata comes from markup only: meta tags and JSON-LD (trafilatura's readers), then the
lone ``<h1>`` or ``<title>`` for the title; htmldate for the date, shown only what states a
date as markup (``<head>``, JSON-LD, ``<time>``) and the URL. trafilatura's own
``extract_metadata`` also guesses authors from classes in the body and dates from free text;
on documentation pages that cost as much as the text extraction, and the dates it found
there were copyright years and timestamps in code samples.
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from copy import copy, deepcopy

import trafilatura
from htmldate import find_date
from lxml import etree
from lxml import html as lxml_html
from trafilatura.metadata import examine_meta, extract_meta_json
from trafilatura.settings import Document, Extractor

from assay.gather.extract._types import Extracted

logger = logging.getLogger(__name__)

TRAFILATURA = f"trafilatura {trafilatura.__version__}"
FALLBACK = "html-fallback"
HTML_TYPE = "text/html"

_PARSERS = threading.local()  # an lxml parser must not be shared between threads
_NEVER_SHOWN = ("script", "style", "noscript", "template")
_HIDING_ATTRIBUTES = etree.XPath("//@hidden | //@aria-hidden | //@style")
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
_CONTAINERS = frozenset({"html", "head", "body"})
_OPTIONS = Extractor(
    output_format="python",  # a Document whose .text is markdown (formatting=True)
    formatting=True,  # headings, lists, emphasis, tables, code as markdown
    links=False,  # link targets inside the text would get in the way of quoting it
    images=False,
    tables=True,
    comments=False,  # readers' comments are not the source's text
    with_metadata=False,  # read below, from markup only
)
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_BLANK_LINES = re.compile(r"\n{3,}")
_PERMALINK_MARK = re.compile(r"[ \t]*¶[ \t]*$", re.MULTILINE)  # Sphinx/MkDocs heading anchors
# characters XML cannot hold: lxml refuses to move text that has one (dropping a <script>
# moves its tail), and the extracted text loses its controls anyway
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def extract_html(html: str, url: str | None = None) -> Extracted:
    """The main text of an HTML page as markdown, with its title, author and date."""
    root = _parse(_NOT_XML.sub("", html))
    if root is None:
        return Extracted(None, None, None, "", HTML_TYPE, FALLBACK)
    _drop_invisible(root)
    text, extractor = _main_text(root, url), TRAFILATURA
    if not text:
        text, extractor = _fallback_text(root), FALLBACK
    title, author, date = _metadata(root, url)
    if extractor == FALLBACK and title and not text.lstrip("# ").startswith(title):
        text = f"# {title}\n\n{text}".strip()
    return Extracted(title, author, date, text, HTML_TYPE, extractor)


def _parse(html: str) -> lxml_html.HtmlElement | None:
    # bytes, because lxml refuses a str that carries an XML encoding declaration
    data = html.encode("utf-8", "replace")
    if not data.strip():
        return None
    try:
        root: lxml_html.HtmlElement = lxml_html.document_fromstring(data, parser=_parser())
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        return None
    return root


def _parser() -> lxml_html.HTMLParser:
    parser: lxml_html.HTMLParser | None = getattr(_PARSERS, "parser", None)
    if parser is None:
        parser = _PARSERS.parser = lxml_html.HTMLParser(
            collect_ids=False,
            default_doctype=False,
            encoding="utf-8",
            remove_comments=True,
            remove_pis=True,
            no_network=True,
        )
    return parser


def _drop_invisible(root: lxml_html.HtmlElement) -> None:
    """Remove what a reader never sees; JSON-LD stays (data for the metadata, never run)."""
    doomed = [
        element
        for element in root.iter(*_NEVER_SHOWN)
        if element.get("type", "").strip().lower() != "application/ld+json"
    ]
    for value in _HIDING_ATTRIBUTES(root):  # attribute values that know their element
        element = value.getparent()
        if element.tag in _CONTAINERS:
            continue  # a hidden <body> is revealed by scripts we do not run: keep the text
        name = value.attrname
        if (
            name == "hidden"
            or (name == "aria-hidden" and value.strip().lower() == "true")
            or (name == "style" and _HIDDEN_STYLE.search(value))
        ):
            doomed.append(element)
    for element in doomed:
        element.drop_tree()  # keeps the element's tail text, which is outside it


def _main_text(root: lxml_html.HtmlElement, url: str | None) -> str:
    options = copy(_OPTIONS)
    options.url = options.source = url
    try:
        # trafilatura copies the tree before pruning it: ``root`` stays whole for the fallback
        document = trafilatura.bare_extraction(root, options=options)
    except Exception:  # heuristics meeting hostile markup: one page must never stop a run
        logger.debug("trafilatura failed on %s", url, exc_info=True)
        return ""
    if not isinstance(document, Document) or not document.text:
        return ""
    text = unicodedata.normalize("NFC", document.text)
    text = _PERMALINK_MARK.sub("", "\n".join(line.rstrip() for line in text.splitlines()))
    return _BLANK_LINES.sub("\n\n", text).strip()


def _metadata(
    root: lxml_html.HtmlElement, url: str | None
) -> tuple[str | None, str | None, str | None]:
    """Title, author and ISO date from the markup; each None when the page does not say."""
    title = author = date = None
    try:
        meta = examine_meta(root)
        if meta.author and " " not in meta.author.strip():
            meta.author = None  # a handle ("admin"), not a name: trafilatura's own rule
        meta = extract_meta_json(root, meta)
        title, author = _clean(meta.title), _clean(meta.author)
    except Exception:  # as above: metadata is a bonus, never a failure
        logger.debug("metadata failed on %s", url, exc_info=True)
    try:
        found = find_date(_date_markup(root), extensive_search=False, original_date=True, url=url)
        date = found if found and _ISO_DATE.fullmatch(found) else None
    except Exception:  # as above
        logger.debug("date failed on %s", url, exc_info=True)
    return title or _page_title(root), author, date


def _date_markup(root: lxml_html.HtmlElement) -> lxml_html.HtmlElement:
    """A copy of the page holding only what states a date as markup.

    That is ``<head>`` (meta tags, JSON-LD, the title), JSON-LD and ``<time>`` elements from
    the body, and nothing else: htmldate, given the whole page, falls back to any date-like
    text, which on real pages is a log line in a code sample or a copyright year.
    """
    markup = lxml_html.Element("html")
    head = root.find("head")
    if head is not None:
        markup.append(deepcopy(head))
    body = etree.SubElement(markup, "body")
    for element in root.iterfind("body//script[@type='application/ld+json']"):
        body.append(_bare_copy(element))
    for element in root.iterfind("body//time"):
        body.append(_bare_copy(element))
    return markup


def _bare_copy(element: lxml_html.HtmlElement) -> lxml_html.HtmlElement:
    duplicate: lxml_html.HtmlElement = deepcopy(element)
    duplicate.tail = None
    return duplicate


def _page_title(root: lxml_html.HtmlElement) -> str | None:
    """The lone ``<h1>``, else ``<title>``, else the first ``<h1>``."""
    headings = [t for t in (_clean(h.text_content()) for h in root.iterfind(".//h1")) if t]
    if len(headings) == 1:
        return headings[0]
    return _clean(root.findtext("head/title")) or (headings[0] if headings else None)


def _clean(value: object) -> str | None:
    """Whitespace collapsed, a trailing permalink mark (Sphinx's ¶) dropped; None if empty."""
    if not isinstance(value, str):
        return None
    return " ".join(value.split()).rstrip(" ¶") or None


# --- the fallback: every visible text node, blocks separated, headings and items marked ---

_BLOCKS = frozenset(
    {
        *("address", "article", "aside", "blockquote", "body", "dd", "details", "dialog"),
        *("div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "header"),
        *("h1", "h2", "h3", "h4", "h5", "h6", "hr", "li", "main", "nav", "ol", "p", "pre"),
        *("section", "summary", "table", "tbody", "td", "th", "thead", "tfoot", "tr", "ul"),
    }
)
_BOILERPLATE = frozenset({"nav", "footer", "aside", "form", "button", "select", "script"})
_HEADINGS = {f"h{level}": "#" * level + " " for level in range(1, 7)}
_PARAGRAPH = re.compile(r"\n\s*\n")
_ONLY_MARKS = re.compile(r"[#\-\s]*")


def _fallback_text(root: lxml_html.HtmlElement) -> str:
    body = root.find("body")
    if body is None:
        return ""
    return _visible(body, _BOILERPLATE) or _visible(body, frozenset({"script"}))


def _visible(body: lxml_html.HtmlElement, skip: frozenset[str]) -> str:
    parts: list[str] = []
    stack: list[tuple[etree._Element, bool]] = [(body, False)]
    while stack:  # iterative: nesting depth is up to the page
        element, closing = stack.pop()
        tag = element.tag if isinstance(element.tag, str) else ""
        if closing:
            parts.append("\n\n" if tag in _BLOCKS else "")
            parts.append(element.tail or "")
            continue
        if not tag or tag in skip:
            parts.append(element.tail or "")
            continue
        if tag in _BLOCKS:
            parts.append("\n\n" + _HEADINGS.get(tag, "- " if tag == "li" else ""))
        parts.append(element.text or "")
        stack.append((element, True))
        stack.extend((child, False) for child in reversed(element))
    blocks = (" ".join(block.split()) for block in _PARAGRAPH.split("".join(parts)))
    return "\n\n".join(b for b in blocks if not _ONLY_MARKS.fullmatch(b))
