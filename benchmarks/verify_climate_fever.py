"""Verify Climate-FEVER claims through search and fetch, and score the verdicts.

The evidence sentences of the selected claims are grouped by Wikipedia article into
documents and served by the local web lab (N sites, each on its own loopback address,
with a SearxNG-compatible search). For each claim, assay's fact-check searches the lab,
fetches the best pages through the real fetcher, records the claim and verifies it with
the configured judge. Status → label: verified/weak → SUPPORTS; contradicted with
supporting evidence → DISPUTED, without → REFUTES; needs_review → NOT_ENOUGH_INFO.

    python benchmarks/verify_climate_fever.py --limit 50
    python benchmarks/verify_climate_fever.py --offset 385 --limit 200   # held-out half
    python benchmarks/verify_climate_fever.py --limit 20 \
        --model openai:qwen2.5-coder-1.5b-instruct --base-url http://127.0.0.1:8765/v1
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

from assay.budget import Budget
from assay.claims.engine import VerificationEngine
from assay.config import load_settings
from assay.engines.select import build_judge
from assay.gather.documents import Document, make_doc_id
from assay.gather.session import GatherSession
from assay.keys import KeyStore
from assay.lab import serve_lab
from assay.models import set_model_requests_allowed
from assay.models.registry import model_from_settings
from assay.models.usage import UsageMeter
from assay.protocols.synth.factcheck import fact_check
from assay.store.claims import ClaimRecord
from assay.store.runs import RunStore

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "climate-fever-dev.jsonl"
LABELS = ("SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO", "DISPUTED")


def load_claims(path: Path, limit: int, offset: int = 0) -> list[dict[str, object]]:
    lines = path.read_text(encoding="utf-8").splitlines()[offset : offset + limit]
    return [json.loads(line) for line in lines]


def corpus(claims: list[dict[str, object]]) -> list[Document]:
    articles: dict[str, list[str]] = defaultdict(list)
    for claim in claims:
        for evidence in claim["evidences"]:  # type: ignore[attr-defined]
            sentence = str(evidence["evidence"]).strip()
            if sentence not in articles[evidence["article"]]:
                articles[str(evidence["article"])].append(sentence)
    return [
        Document(doc_id=make_doc_id(title), title=title, text="\n\n".join(sentences))
        for title, sentences in sorted(articles.items())
    ]


def predicted(claim: ClaimRecord) -> str:
    if claim.status in ("verified", "weak"):
        return "SUPPORTS"
    if claim.status == "contradicted":
        supported = any(e.stance == "supports" for e in claim.evidence)
        return "DISPUTED" if supported else "REFUTES"
    return "NOT_ENOUGH_INFO"


def scores(pairs: list[tuple[str, str]]) -> None:
    total = len(pairs)
    accuracy = sum(gold == guess for gold, guess in pairs) / total
    print(f"accuracy {accuracy:.3f} over {total} claims")
    f1s = []
    print(f"{'class':<16} {'gold':>5} {'pred':>5} {'prec':>6} {'rec':>6} {'f1':>6}")
    for label in LABELS:
        tp = sum(g == label and p == label for g, p in pairs)
        gold = sum(g == label for g, _ in pairs)
        guessed = sum(p == label for _, p in pairs)
        precision = tp / guessed if guessed else 0.0
        recall = tp / gold if gold else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        f1s.append(f1)
        print(f"{label:<16} {gold:>5} {guessed:>5} {precision:>6.3f} {recall:>6.3f} {f1:>6.3f}")
    print(f"macro F1 {sum(f1s) / len(f1s):.3f}")
    print("confusion (rows gold, columns predicted):")
    print(" " * 16 + "".join(f"{label[:8]:>10}" for label in LABELS))
    counts = Counter(pairs)
    for gold in LABELS:
        print(f"{gold:<16}" + "".join(f"{counts[(gold, p)]:>10}" for p in LABELS))


async def run(args: argparse.Namespace) -> None:
    claims = load_claims(args.data, args.limit, args.offset)
    docs = corpus(claims)
    home = Path(tempfile.mkdtemp(prefix="assay-cf-"))
    with serve_lab(docs, sites=args.sites, faults=False) as lab:
        settings = load_settings(
            home=home,
            search="searxng",
            searxng_url=lab.sites[0],
            allow_hosts=["127.0.0.0/8"],
            model=args.model,
            base_url=args.base_url,
            max_results=args.sources,
        )
        keys = KeyStore(settings.home)
        meter = UsageMeter()
        run_ = RunStore(home, fsync=False).create("climate-fever benchmark", "benchmark", {})
        budget = Budget.from_settings(settings)
        judge = build_judge(model_from_settings(settings, keys), budget=budget, meter=meter)
        print(
            f"judge: {judge.name}; {len(claims)} claims; {len(docs)} articles on {args.sites} sites"
        )
        pairs = []
        started = time.monotonic()
        async with GatherSession(run_, settings, keys=keys, budget=budget) as session:
            engine = VerificationEngine(run_, judge)
            for number, item in enumerate(claims, start=1):
                t0 = time.monotonic()
                claim = await fact_check(
                    str(item["claim"]), session, engine, max_sources=args.sources
                )
                guess = predicted(claim)
                pairs.append((str(item["claim_label"]), guess))
                if args.verbose:
                    print(
                        f"{number:>4} {item['claim_label']:<16} {guess:<16} {claim.status:<13} "
                        f"{time.monotonic() - t0:5.1f}s {str(item['claim'])[:60]}"
                    )
        wall = time.monotonic() - started
    scores(pairs)
    usage = meter.totals
    print(
        f"wall {wall:.1f}s ({wall / len(pairs):.2f}s per claim); model calls {usage.model_calls}; "
        f"tokens in {usage.input_tokens} out {usage.output_tokens}"
        f"{' (estimated)' if usage.estimated else ''}"
    )
    print(f"run directory: {run_.dir}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--limit", type=int, default=50, help="claims to check")
    parser.add_argument(
        "--offset", type=int, default=0, help="lines to skip first (385: the held-out half)"
    )
    parser.add_argument("--sites", type=int, default=8)
    parser.add_argument("--sources", type=int, default=4, help="pages read per claim")
    parser.add_argument("--model", default=None, help="provider:model (none: extractive)")
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    set_model_requests_allowed(True)
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
