"""HotpotQA through `assay eval`: answers, citations, time and tokens.

`assay eval` serves the HotpotQA-100 corpus through the lab and runs each question as an
`assay research` run (see qa_lab.py for the figures). Per HotpotQA question type: bridge,
comparison. Tune half: questions 0-49; held-out half: ``--offset 50``.

    python benchmarks/qa_hotpot.py --limit 50 --out /tmp/hotpot-extractive
    python benchmarks/qa_hotpot.py --offset 50 --limit 50   # the held-out half
    python benchmarks/qa_hotpot.py --limit 20 --model openai:qwen2.5-coder-1.5b-instruct \
        --base-url http://127.0.0.1:8765/v1
"""

from __future__ import annotations

import qa_lab

if __name__ == "__main__":
    qa_lab.main(__doc__.splitlines()[0], "hotpotqa-100.json", "hotpotqa-100-corpus.json")
