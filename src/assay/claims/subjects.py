"""Whose subject a quote speaks of, where ``conflict``'s names cannot tell.

``conflict`` reads a subject from capitalised names. Two cases slip past it, both seen in
research runs as claims "contradicted" by a sentence about something else:

- **Numbered siblings.** The pages of one series have titles that are the same words but
  for a number or an identifier and the words that go with it ("Tarn Suite in G major,
  TV 363" / "Tarn Suite in B minor, TV 367"; "Blue Lantern Tales (Volume 3)" / "… (Volume
  4)"), and sentences alike too, which read to ``conflict`` as one name. A quote from one
  member's page that speaks of its page's subject speaks of that member, unless it gives
  the claim's page's own distinguishing words.
- **A refutation's head.** A value contradicts the claim only when it is said of the
  claim's subject. A quote opening with another name than the claim's (the claim's own
  opening name or, when it opens with none, the one its page title opens with) states
  that name's values, even when it mentions the claim's subject on the way ("The Vellmark
  League had a charter member, the Tarnby Rovers, who later became the Halvorsen Rovers,
  but it has no relationship with …" says nothing against a claim about the Halvorsen
  Rovers). ``conflict.different_subjects`` lets a quote that names the claim's subject
  through; a support may well be said that way, a contradiction is not.
"""

from __future__ import annotations

from assay.claims import conflict
from assay.reading.names import in_full, same_name

MIN_SHARED = 0.5
"""The share of the shorter title's words two sibling titles have in common."""


def _words(title: str) -> set[str]:
    return {t.lower() for t in conflict.tokens(title) if t.isalnum()}


def numbered_siblings(first: str, second: str) -> bool:
    """Whether two page titles name two members of one series: most words shared, and
    each with a number or an identifier of its own ("3" / "4", "363b" / "367b"). A title
    numbering only one side ("… (season 1)" / "List of … characters") is no sibling."""
    a, b = _words(first), _words(second)
    if len(a & b) < MIN_SHARED * min(len(a), len(b)):
        return False
    return _numbered(a - b) and _numbered(b - a)


def _numbered(words: set[str]) -> bool:
    return any(any(c.isdigit() for c in word) for word in words)


def of_a_sibling(
    subject: conflict.Reading,
    claim_title: str,
    quoted: conflict.Reading,
    quote: str,
    quote_title: str,
) -> bool:
    """Whether ``quote``, on the page titled ``quote_title``, speaks of a sibling of the
    claim's page's subject: the titles are numbered siblings, the claim (``subject``, read
    with its page title) and the quote (``quoted``, likewise) each speak of their own page's
    subject, and the quote lacks the words that set the claim's page apart. Pages numbered
    as parts of one text ("Coastal notes 3" / "Coastal notes 4") are about what their
    sentences name: a sentence opening with another name than its page's is no member's."""
    if not numbered_siblings(claim_title, quote_title):
        return False
    if not (_of_its_page(subject) and _of_its_page(quoted)):
        return False
    return not (_words(claim_title) - _words(quote_title)) <= _words(quote)


def _of_its_page(reading: conflict.Reading) -> bool:
    """Whether a statement (read with its page title) speaks of its page's subject: it
    opens with no name of its own, or with the title's."""
    return not reading.head or bool(reading.titled and same_name(reading.head, reading.titled))


def opens_with_another(subject: conflict.Reading, quote: conflict.Reading) -> bool:
    """Whether ``quote`` (``conflict.read`` with its page title) opens with a name that is
    not the claim's subject (``subject``, read with the claim's page title)."""
    claims = subject.head or subject.titled
    if not claims or not quote.head:
        return False
    return not (
        same_name(claims, quote.head)
        or in_full(quote.head, quote.titled, claims)
        or in_full(claims, subject.titled, quote.head)
    )
