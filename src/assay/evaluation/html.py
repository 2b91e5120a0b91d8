"""eval.json as one self-contained HTML page: figures, breakdowns, plots, every item."""

from __future__ import annotations

from html import escape
from typing import Any

from assay.evaluation import plots

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.6em}
table{border-collapse:collapse;margin:.6em 0}td,th{border:1px solid #ccc;padding:3px 7px;
text-align:left;vertical-align:top}th{background:#f3f3f3}td.num{text-align:right}
.plots{display:flex;flex-wrap:wrap;gap:12px}.plots svg{width:520px;height:auto}
.bad{color:#b00}.muted{color:#777}
"""


def render_html(data: dict[str, Any]) -> str:
    summary, rows = data["summary"], data["rows"]
    claims = data["kind"] == "claims"
    parts = [
        f"<h1>assay eval: {escape(data['dataset'])}</h1>",
        f"<p class=muted>{len(rows)} {data['kind']} · protocol {escape(data['protocol'])} · "
        f"engine {escape(data['engine'])} · corpus {escape(data['corpus'])} · "
        f"assay {escape(data['assay_version'])} · {escape(data['created_at'])}</p>",
        "<h2>Figures</h2>",
        _table(["figure", "value"], _figures(summary, claims)),
        f"<p class=muted id=citation-precision>{escape(CITATION_PRECISION)}</p>",
        "<h2>By type</h2>",
        _by_type(data["by_type"], claims),
    ]
    if claims:
        parts += ["<h2>Confusion (rows gold, columns predicted)</h2>", _confusion(summary)]
    parts += ["<h2>Plots</h2>", _plots(data, claims), "<h2>Items</h2>", _items(rows, claims)]
    body = "\n".join(parts)
    return (
        f"<!doctype html><html><head><meta charset=utf-8><title>assay eval</title>"
        f"<style>{_STYLE}</style></head><body>{body}</body></html>\n"
    )


CITATION_PRECISION = (
    "Citation precision: of the (statement, cited page) pairs in the reports — a report line "
    "that states something (or each part of one a claim marker closes), and each distinct "
    "page it cites by [n], link or claim marker — "
    "the share whose page, as the run fetched it, supports the statement: the quotes the "
    "cited claims take from that page (found verbatim in its snapshot) or, for a line citing "
    "no claim of that page, one or two adjacent sentences of the page, contain most of the "
    "statement's content words and every number it states. Effective citations: the "
    "supported pairs. A page the run never fetched supports nothing."
)


def _figures(s: dict[str, Any], claims: bool) -> list[list[str]]:
    if claims:
        scores = [["label accuracy", f"{s['accuracy']:.3f}"], ["macro-F1", f"{s['macro_f1']:.3f}"]]
    else:
        grades = s["grades"]
        scores = [
            ["exact match", f"{s['em']:.3f}"],
            ["token F1", f"{s['f1']:.3f}"],
            ["correct / incorrect / not attempted",
             f"{grades['correct']} / {grades['incorrect']} / {grades['not_attempted']}"],
            ["gold passages among sources", _maybe(s.get("gold_recall"))],
        ]  # fmt: skip
    return [
        *scores,
        ["failed runs", str(s["failed"])],
        ["fabricated URLs (cited, never fetched)", f"{s['fabricated_urls']} of {s['cited_urls']}"],
        ["quotes not found in their snapshot", f"{s['quotes_missing']} of {s['quotes']}"],
        ["report sentences supported by their citations",
         f"{_maybe(s['sentences_supported'])} of {s['sentences']}"],
        ["fabricated claim markers", str(s["fabricated_markers"])],
        *_citation_figures(s),
        ["tokens (total / per item)", f"{s['tokens_total']} / {s['tokens_mean']:.0f}"],
        ["model calls", str(s["model_calls"])],
        ["elapsed", _seconds(s.get("elapsed_seconds"))],  # an older eval.json has none
        ["item time (summed / per item)",
         f"{s['item_seconds_total']:.1f} s / {s['wall_mean']:.1f} s"],
    ]  # fmt: skip


def _citation_figures(s: dict[str, Any]) -> list[list[str]]:
    if "citations" not in s:  # an eval.json from before citation precision
        return []
    return [
        ["citation precision (supported statement–page pairs)",
         f"{_maybe(s['citation_precision'])} ({s['effective_citations']} of {s['citations']}); "
         f"mean per report {_maybe(s['citation_precision_mean'])}"],
        ["effective citations (per report)", f"{s['effective_citations_mean']:.2f}"],
        ["cited pages the run fetched", _maybe(s["urls_fetched_share"])],
    ]  # fmt: skip


def _maybe(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _seconds(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f} s"


def _by_type(groups: dict[str, dict[str, Any]], claims: bool) -> str:
    if claims:
        head = ["type", "items", "accuracy", "macro-F1", "wall/item", "tokens/item"]
        keys: tuple[str, ...] = ("accuracy", "macro_f1")
    else:
        head = ["type", "items", "EM", "F1", "correct", "wall/item", "tokens/item"]
        keys = ("em", "f1", "correct")
    body = [
        [t, str(g["items"]), *(f"{g[k]:.3f}" for k in keys), f"{g['wall_mean']:.1f}",
         f"{g['tokens_mean']:.0f}"]
        for t, g in groups.items()
    ]  # fmt: skip
    return _table(head, body)


def _confusion(summary: dict[str, Any]) -> str:
    confusion = summary["confusion"]
    labels = list(confusion)
    return _table(["gold", *labels], [[g, *(str(confusion[g][p]) for p in labels)] for g in labels])


def _plots(data: dict[str, Any], claims: bool) -> str:
    if not plots.available():
        return "<p class=muted>plots need matplotlib: pip install 'assay[eval]'</p>"
    rows = data["rows"]
    if claims:
        per_class = data["summary"]["per_class"]
        first = plots.grouped_bars(
            {label: {"gold": c["gold"], "predicted": c["predicted"]}
             for label, c in per_class.items()}, "labels: gold and predicted", "items",
        )  # fmt: skip
    else:
        first = plots.histogram([r["f1"] for r in rows], "token F1 per question", "F1")
    metric = ("accuracy", "macro_f1") if claims else ("em", "f1", "correct")
    svgs = [
        first,
        plots.grouped_bars(
            {t: {m: g[m] for m in metric} for t, g in data["by_type"].items()},
            "scores by type",
            "score",
        ),
        plots.per_item([r["wall_seconds"] for r in rows], "wall time per item", "seconds"),
    ]
    if any(r["tokens"] for r in rows):  # the extractive engine spends none
        svgs.append(plots.per_item([r["tokens"] for r in rows], "model tokens per item", "tokens"))
    return "<div class=plots>" + "".join(svgs) + "</div>"


def _items(rows: list[dict[str, Any]], claims: bool) -> str:
    head = ["#", "id", "type", "claim" if claims else "question", "gold",
            "predicted" if claims else "answer", "score", "citation precision", "status", "s",
            "tokens"]  # fmt: skip
    body = []
    for n, r in enumerate(rows, start=1):
        gold = r["gold"] if isinstance(r["gold"], str) else " | ".join(r["gold"])
        shown = r["predicted"] if claims else (r["answer"] or "—")
        score = ("✓" if r["score"] else "✗") if claims else f"{r['grade']} ({r['f1']:.2f})"
        precision = f"{_maybe(r.get('citation_precision'))} of {r.get('citations', 0)}"
        body.append([str(n), r["id"], r["type"], r["text"], gold, shown, score, precision,
                     r["status"], f"{r['wall_seconds']:.1f}", str(r["tokens"])])  # fmt: skip
    return _table(head, body)


def _table(head: list[str], body: list[list[str]]) -> str:
    th = "".join(f"<th>{escape(h)}</th>" for h in head)
    trs = "".join(
        "<tr>" + "".join(f"<td>{escape(str(cell))}</td>" for cell in row) + "</tr>" for row in body
    )
    return f"<table><tr>{th}</tr>{trs}</table>"
