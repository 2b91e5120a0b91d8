"""The text toolkit claims, engines and protocols share: sentences with exact offsets, stop
words, a small stemmer, content words, and a detector for text that addresses an AI agent.
It depends on nothing else in assay, so everything may build on it.

Everything is deterministic and data-free: no tokenizer, tagger or word list is downloaded,
so the engine behaves the same offline and on every machine. Offsets are kept exact
(``text[s.start:s.end] == s.text``) because every quote the engine hands on must be found
verbatim in its snapshot; a splitter that rewrote text would make quotes unverifiable.

Scripts written without spaces (Chinese, Japanese, Korean) have no words to split on: a
run of their characters becomes its overlapping character pairs (``哈尔沃森`` is ``哈尔``,
``尔沃``, ``沃森``), the usual unit of CJK search, so a question and a page that share a
two-character word share a token. Their sentences end at ``。！？`` with no space after.
While a run is in another language (``assay.language``), that language's function words
are stop words too (``using_stop_words``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Literal

Kind = Literal["text", "heading", "item", "table", "quote"]


def word_set(listing: str) -> frozenset[str]:
    """A set of words written as one whitespace-separated string (long lists stay readable)."""
    return frozenset(listing.split())


STOP_WORDS = word_set(
    """a about above after again against also am an and any are aren't as at be because
    been before being below between both but by can could did do does doing down during each
    for from further had has have having he her here hers herself him himself his how i if
    in into is it its itself just let me might must my myself of off on once or other
    ought our ours ourselves out over own same shall she should so such than that the
    their theirs them themselves then there these they this those through to under until
    up upon very via was we were what when where which while who whom whose why will with
    would you your yours yourself yourselves it's that's there's also however thus therefore
    yet still already even may one two per among within across around according
    since whether though although either s t
    not no nor never without neither none cannot n't"""
)
"""Function words; negations are here too because polarity is compared separately."""

_stop_words: ContextVar[frozenset[str]] = ContextVar("assay_stop_words", default=STOP_WORDS)


@contextmanager
def using_stop_words(extra: frozenset[str]) -> Iterator[None]:
    """``extra`` (a language's function words) count as stop words in this context."""
    token = _stop_words.set(STOP_WORDS | extra)
    try:
        yield
    finally:
        _stop_words.reset(token)


def stop_words() -> frozenset[str]:
    """The stop words in force: English's, and the run's language's (merged once)."""
    return _stop_words.get()


NUMBER_WORDS = {
    "zero": 0, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000, "dozen": 12,
}  # fmt: skip
"""Number words read as numbers ("one" is left out: it is far more often a pronoun)."""

_IRREGULAR = {
    "rose": "rise", "risen": "rise", "fell": "fall", "fallen": "fall", "grew": "grow",
    "grown": "grow", "higher": "high", "highest": "high", "lower": "low", "lowest": "low",
    "greater": "great", "larger": "large", "largest": "large", "smaller": "small",
    "smallest": "small", "warmer": "warm", "warmest": "warm", "cooler": "cool",
    "colder": "cold", "hotter": "hot", "hottest": "hot", "worse": "bad", "worst": "bad",
    "better": "good", "best": "good", "men": "man", "women": "woman", "children": "child",
    "people": "person", "faster": "fast", "slower": "slow", "stronger": "strong",
    "weaker": "weak", "older": "old", "younger": "young", "fewer": "few",
    # the past forms questions and pages use for the same event ("who wrote" / "written by")
    "wrote": "write", "written": "write", "began": "begin", "begun": "begin",
    "built": "build", "sang": "sing", "sung": "sing", "won": "win", "held": "hold",
    "made": "make", "gave": "give", "given": "give", "took": "take", "taken": "take",
    "became": "become", "knew": "know", "known": "know", "drew": "draw", "drawn": "draw",
    "chose": "choose", "chosen": "choose", "spoke": "speak", "spoken": "speak",
    "sold": "sell", "told": "tell", "brought": "bring", "bought": "buy", "taught": "teach",
    "fought": "fight", "met": "meet", "ran": "run", "went": "go", "gone": "go", "came": "come",
    "flew": "fly", "flown": "fly", "stood": "stand", "threw": "throw", "thrown": "throw",
    "drove": "drive", "driven": "drive", "rode": "ride", "ridden": "ride", "broke": "break",
    "broken": "break", "stole": "steal", "stolen": "steal", "sent": "send", "spent": "spend",
    "lost": "lose", "paid": "pay", "kept": "keep", "led": "lead", "shot": "shoot",
}  # fmt: skip
_SUFFIXES = (("ational", "ate"), ("ization", "ize"), ("ation", "ate"), ("fulness", "ful"),
             ("iveness", "ive"), ("ness", ""), ("ment", ""), ("ity", ""), ("ly", ""))  # fmt: skip
_VOWEL = re.compile(r"[aeiouy]")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_CJK = re.compile(f"[{_CJK_CHARS}]")
_CJK_SPLIT = re.compile(f"[{_CJK_CHARS}]+|[^{_CJK_CHARS}]+")
_PHRASE_TOKEN = re.compile(r"(?:[^\W\d_]\.){2,}|[^\W_]+(?:['’-][^\W_]+)*|[^\w\s]")


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A light suffix stripper: plurals, -ing/-ed, a few derivations, final y/e.

    It only has to map a word and its inflections to the same key — both sides of every
    comparison go through it — so it is deliberately small and never consults a lexicon.
    Cached: every check stems the same few thousand words over and over.
    """
    w = word.lower().replace("’", "'")
    w = _IRREGULAR.get(w, w)
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suffix in ("ing", "ed"):
        base = w[: -len(suffix)]
        if w.endswith(suffix) and not w.endswith("eed") and len(base) >= 3 and _VOWEL.search(base):
            w = base[:-1] if base[-1] == base[-2] and base[-1] not in "lsz" else base
            break
    for suffix, replacement in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 4:
            w = w[: -len(suffix)] + replacement
            break
    if len(w) > 3 and w.endswith("y"):
        w = w[:-1] + "i"
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


def raw_words(text: str) -> list[str]:
    """The word tokens of ``text`` as written (letters and digits, ``don't`` kept whole; a
    run of CJK characters as its character pairs)."""
    found: list[str] = _WORD.findall(text)
    if not _CJK.search(text):
        return found
    return [piece for token in found for piece in _cjk_pairs(token)]


def has_cjk(text: str) -> bool:
    """Whether ``text`` has a character of a script written without spaces (CJK)."""
    return bool(_CJK.search(text))


def _cjk_pairs(token: str) -> list[str]:
    if not _CJK.search(token):
        return [token]
    pieces: list[str] = []
    for run in _CJK_SPLIT.findall(token):
        if not _CJK.match(run) or len(run) == 1:
            pieces.append(run)
        else:
            pieces += [run[i : i + 2] for i in range(len(run) - 1)]
    return pieces


def phrase_tokens(text: str) -> list[str]:
    """Words as written (``solid-state``, ``U.S.`` kept whole) and punctuation, in order."""
    return _PHRASE_TOKEN.findall(text)


def words(text: str) -> list[str]:
    """The word tokens of ``text``, lower-cased, typographic apostrophes made plain."""
    return [w.lower().replace("’", "'") for w in raw_words(text)]


def is_content(word: str) -> bool:
    """Not a stop word, a number (digits or words) or a single character."""
    return (
        word not in stop_words()
        and word not in NUMBER_WORDS
        and len(word) > 1
        and not word.isdigit()
    )


def content_words(text: str) -> list[str]:
    """The stems of ``text``'s content words, in order (stop words and numbers dropped); a
    possessive is its noun ("Rankin's" is "Rankin")."""
    return [
        stem(w.removesuffix("'s").removesuffix("'"))
        for w in words(text)
        if is_content(w) and not w.endswith("n't")
    ]


@dataclass(frozen=True)
class Sentence:
    """One sentence (or heading, list item, table row) of a text, with exact offsets."""

    text: str
    start: int
    end: int
    kind: Kind = "text"


_MARKER = re.compile(r"[ \t]*(?:(#{1,6})[ \t]+|([-*+•]|\d{1,3}[.)])[ \t]+|(>)[ \t]*|(\|))")
_TERMINATOR = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s)|[。！？]+[」』”’）)\]]*")
_ABBREVIATIONS = word_set(
    """e.g i.e eg ie vs dr mr mrs ms prof sr jr st mt ft inc ltd co corp gen gov sen rep col lt
    sgt capt cf al approx est dept univ jan feb mar apr jun jul aug sep sept oct nov dec a.m
    p.m ca viz ph.d no nos vol pp p fig figs eq ch sec art"""
)
_STARTERS = word_set(
    "the this that these those it its they he she we in on at a an but however there his her "
    "their our as after before when while for if"
)
_INITIALISM = re.compile(r"(?:[a-z]\.)*[a-z]")


def split_sentences(text: str) -> list[Sentence]:
    """Sentences of ``text`` with exact offsets; markdown blocks are boundaries.

    Headings, list items, quotes and table rows each start a block; a blank line ends one; a
    single newline joins two lines only when the second continues the first (it starts
    lower-case, or the first is a long line with no closing punctuation, as hard-wrapped
    prose is). Inside a block, ``.``/``!``/``?`` followed by space ends a sentence unless the
    next word starts lower-case or the dot closes an abbreviation (``e.g.``, ``Dr.``,
    ``U.S.``); decimals never split because a terminator must be followed by space.
    """
    out: list[Sentence] = []
    for start, end, kind in _blocks(text):
        cut = start
        for match in _TERMINATOR.finditer(text, start, end):
            if _is_boundary(text, match, end):
                _emit(text, cut, match.end(), kind, out)
                cut = match.end()
        _emit(text, cut, end, kind, out)
    return out


def _blocks(text: str) -> list[tuple[int, int, Kind]]:
    blocks: list[tuple[int, int, Kind]] = []
    offset, current = 0, None
    previous = ""
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        stripped = body.strip()
        marker = _MARKER.match(body)
        kind: Kind = "text"
        if marker:
            kind = "heading" if marker.group(1) else "item" if marker.group(2) else "quote"
            kind = "table" if marker.group(4) else kind
        starts_new = bool(marker) or current is None or not _continues(previous, stripped)
        if current is not None and (starts_new or not stripped):
            blocks.append(current)
            current = None
        if stripped:
            if current is None:
                skip = marker.end() if marker else len(body) - len(body.lstrip())
                current = (offset + skip, offset + len(body), kind)
            else:
                current = (current[0], offset + len(body), current[2])
            single_line = current[2] in ("heading", "table")
            if single_line:
                blocks.append(current)
                current = None
        previous = stripped
        offset += len(line)
    if current is not None:
        blocks.append(current)
    return blocks


def _continues(previous: str, line: str) -> bool:
    if not previous or not line:
        return False
    if line[0].islower():
        return True
    return len(previous) >= 60 and previous[-1] not in ".!?:…\"'”’)"


def _is_boundary(text: str, match: re.Match[str], end: int) -> bool:
    rest = text[match.end() : end].lstrip()
    if not rest:
        return True
    if rest[0].islower():
        return False
    if match.group().rstrip("\"'”’)]") != ".":
        return True
    before = text[: match.start()].rsplit(maxsplit=1)
    token = before[-1].lstrip("(\"'“‘[").lower() if before else ""
    next_word = words(rest[:40])[:1]
    if token in ("no", "nos", "vol", "p", "pp", "fig", "figs", "eq", "ch", "sec", "art"):
        return not rest[0].isdigit()
    if token in _ABBREVIATIONS:
        return False
    if _INITIALISM.fullmatch(token):
        return bool(next_word) and next_word[0] in _STARTERS
    return True


def _emit(text: str, start: int, end: int, kind: Kind, out: list[Sentence]) -> None:
    piece = text[start:end]
    lead = len(piece) - len(piece.lstrip())
    trail = len(piece) - len(piece.rstrip())
    start, end = start + lead, end - trail
    if kind == "table":
        while end > start and text[end - 1] in "| \t":
            end -= 1
    if end > start and any(ch.isalnum() for ch in text[start:end]):
        out.append(Sentence(text[start:end], start, end, kind))


def is_question(sentence: str) -> bool:
    """Whether a sentence asks (a "?" before any closing quotes, brackets or full stop)."""
    return sentence.rstrip(" .\"'”’)]").endswith("?")


_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass)\b[^.!?]{0,40}\b(?:instructions?|prompts?|"
    r"rules|context|messages?|guidelines|everything)\b"
    r"|\byou\s+are\s+(?:now|an?\s+(?:ai|assistant|agent|language\s+model|llm|chatbot))\b"
    r"|\bfrom\s+now\s+on\b|\bact\s+as\b|\bpretend\s+(?:to\s+be|you)\b"
    r"|\b(?:system|developer)\s+(?:prompt|message|instructions?)\b"
    r"|\bassistants?\b|\bchatbots?\b|\bchatgpt\b|\bclaude\b|\bgpt-?\d|\bllms?\b"
    r"|^\W*(?:system|user|developer)\s*:"
    r"|\blanguage\s+models?\b|\bai\s+(?:agents?|models?|systems?|researchers?)\b"
    r"|\bnew\s+instructions?\b|\bjailbreak|\bprompt\s+injection\b",
    re.IGNORECASE,
)
_IMPERATIVE = re.compile(
    r"^\W*(?:please\s+)?(?:ignore|disregard|forget|output|print|reply|respond|answer|say|"
    r"write|mark|label|classify|rate|tell|report|include|append|return|stop|treat|consider|"
    r"remember|do\s+not|don't|never|always|cite|summari[sz]e|visit|click|send|email|call|"
    r"execute|run|delete|open|fetch)\b",
    re.IGNORECASE,
)
_AT_READER = re.compile(
    r"\b(?:you|your|yourself|the\s+user|this\s+(?:claim|page|document|text|source)|"
    r"verdicts?|labels?|supports|refutes|verified|instructions?)\b",
    re.IGNORECASE,
)


def looks_like_instruction(sentence: str) -> bool:
    """Whether ``sentence`` addresses an AI agent or commands its reader.

    Page text is data: such a sentence must never become a claim, a quote or a query, so
    the engine drops it wherever it reads text. False positives only cost one sentence.
    """
    if _INSTRUCTION.search(sentence):
        return True
    if _IMPERATIVE.search(sentence) and _AT_READER.search(sentence):
        return True
    return bool(re.search(r"\byou\s+(?:must|should|will|need\s+to)\b", sentence, re.I))
