"""``assay eval``: run a dataset through ``assay batch`` and grade what comes back.

``dataset`` reads questions with gold answers or claims with gold labels (JSON array or
JSONL, common field spellings accepted) and any corpus they carry inline; ``scoring`` has
the answer and label metrics; ``integrity`` audits each run's citations from its files;
``grade`` turns batch rows into eval rows and summaries; ``stats`` the paired tests;
``runner`` ties them together (the lab serves the corpus for the duration); ``html`` writes
the report; ``compare`` sets two evals side by side.
"""
