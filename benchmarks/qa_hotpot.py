"""HotpotQA through `assay research --json`: answers, citations, time and tokens.

The lab serves the HotpotQA-100 corpus as websites with a SearxNG-compatible search; each
question is one `assay research --json` process against it. Scores: exact match and token
F1 of the answer against the gold answer; the share of the question's gold supporting
passages among the run's sources; and the share of the URLs the report links to that the
run really fetched (must be 100%). Figures are printed for all questions and per HotpotQA
question type (bridge, comparison); ``--out`` writes every row as JSON for qa_report.py.

    python benchmarks/qa_hotpot.py --limit 50 --out /tmp/hotpot-extractive.json
    python benchmarks/qa_hotpot.py --limit 20 --model openai:qwen2.5-coder-1.5b-instruct \
        --base-url http://127.0.0.1:8765/v1
"""

from __future__ import annotations

import argparse
import json
import re
import string
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from assay.lab import serve_lab
from assay.report.markers import cited_urls
from assay.store.sources import SourceLedger

DATA = next(
    (p / "shared" / "data" for p in Path(__file__).resolve().parents if (p / "shared").is_dir()),
    Path("/work/shared/data"),
)  # /work/main and the /work/wt/* worktrees sit at different depths


def normalize(text: str) -> str:
    """SQuAD/HotpotQA answer normalisation: lower, no punctuation, articles or extra spaces."""
    text = "".join(c for c in text.lower() if c not in set(string.punctuation))
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", text).split())


def token_f1(prediction: str, gold: str) -> float:
    predicted, expected = normalize(prediction).split(), normalize(gold).split()
    common = sum((Counter(predicted) & Counter(expected)).values())
    if not common:
        return 0.0
    precision, recall = common / len(predicted), common / len(expected)
    return 2 * precision * recall / (precision + recall)


def run_question(question: str, args: argparse.Namespace, home: Path, search_url: str) -> dict:
    command = [
        sys.executable, "-m", "assay.cli", "research", question, "--json", "--quiet",
        "--home", str(home), "--search", "searxng", "--searxng-url", search_url,
        "--allow-host", "127.0.0.0/8", "--sources", str(args.sources),
    ]  # fmt: skip
    if args.model:
        command += ["--model", args.model]
    if args.base_url:
        command += ["--base-url", args.base_url]
    if args.budget_time:
        command += ["--budget-time", str(args.budget_time)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if not done.stdout.strip():
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "?"}
    result: dict = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--offset", type=int, default=0, help="skip this many questions first")
    parser.add_argument("--sites", type=int, default=8)
    parser.add_argument("--sources", type=int, default=5)
    parser.add_argument("--model", default=None)
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--budget-time", type=float, default=None)
    parser.add_argument("--out", type=Path, default=None, help="write the rows as JSON here")
    args = parser.parse_args()
    questions = json.loads((DATA / "hotpotqa-100.json").read_text())
    questions = questions[args.offset : args.offset + args.limit]
    home = Path(tempfile.mkdtemp(prefix="assay-hotpot-"))
    rows = []
    with serve_lab(DATA / "hotpotqa-100-corpus.json", sites=args.sites, faults=False) as lab:
        engine = args.model or "extractive"
        print(f"lab: {len(lab.pages)} pages on {args.sites} sites; engine: {engine}")
        for number, item in enumerate(questions, start=1):
            started = time.monotonic()
            result = run_question(item["question"], args, home, lab.sites[0])
            seconds = time.monotonic() - started
            if "error" in result:
                print(f"{number:>3} ERROR {result['error']}")
                rows.append({"type": item["type"], "em": 0.0, "f1": 0.0, "gold_recall": 0.0,
                             "fetched": 1.0, "seconds": seconds, "tokens": 0,
                             "question": item["question"], "gold": item["answer"],
                             "report": None})  # fmt: skip
                continue
            answer = result["answer"] or ""
            gold_titles = {title for title, _ in item["supporting_facts"]}
            titles = {s["title"] for s in result["sources"]}
            run_dir = Path(result["run_dir"])
            fetched = {u for r in SourceLedger(run_dir).records() for u in (r.url, r.final_url)}
            links = cited_urls(Path(result["report"]).read_text()) if result["report"] else []
            usage = result["usage"]
            row = {
                "type": item["type"],
                "question": item["question"],
                "gold": item["answer"],
                "answer": answer,
                "report": result["report"],
                "em": float(normalize(answer) == normalize(item["answer"])),
                "f1": token_f1(answer, item["answer"]),
                "gold_recall": len(gold_titles & titles) / len(gold_titles),
                "fetched": sum(u in fetched for u in links) / len(links) if links else 1.0,
                "seconds": seconds,
                "tokens": usage["input_tokens"] + usage["output_tokens"],
            }
            rows.append(row)
            scores = " ".join(f"{k} {row[k]:.2f}" for k in ("em", "f1", "gold_recall", "fetched"))
            print(f"{number:>3} {scores} {seconds:5.1f}s {row['tokens']:>6} tok | "
                  f"gold {item['answer']!r} | answer {answer[:60]!r}")  # fmt: skip
    summarize(rows)
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))


def summarize(rows: list[dict]) -> None:
    """All questions, then each HotpotQA type on its own."""
    groups = {"all": rows} | {
        kind: [r for r in rows if r["type"] == kind] for kind in sorted({r["type"] for r in rows})
    }
    print()
    for name, group in groups.items():
        count = len(group)

        def mean(key: str, group: list[dict] = group, count: int = count) -> float:
            return sum(r[key] for r in group) / count

        print(f"{name:<11} {count:>3} questions: EM {mean('em'):.3f}  F1 {mean('f1'):.3f}  "
              f"gold passages among sources {mean('gold_recall'):.3f}  "
              f"cited URLs fetched {mean('fetched'):.3f}  "
              f"wall {mean('seconds'):.1f}s  tokens {mean('tokens'):.0f}")  # fmt: skip


if __name__ == "__main__":
    main()
