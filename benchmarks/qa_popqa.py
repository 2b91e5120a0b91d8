"""PopQA through `assay eval`: answers, citations, time and tokens.

`assay eval` serves the PopQA dev corpus (791 paragraphs, ``[{title, text}]``) through the
lab and runs each question as an `assay research` run (see qa_lab.py for the figures). Each
question asks for one fact about a long-tail person; it is graded against its answer and
aliases, per PopQA type (occupation, place of birth). Its two supporting paragraphs are the
person's article and the answer's. Tune half: items 0-186; held-out half: ``--offset 187``.

    python benchmarks/qa_popqa.py --limit 50 --out /tmp/popqa-tune
    python benchmarks/qa_popqa.py --offset 187 --limit 50 --out /tmp/popqa-held
"""

from __future__ import annotations

import qa_lab

if __name__ == "__main__":
    qa_lab.main(__doc__.splitlines()[0], "popqa-dev.json", "popqa-dev-corpus.json")
