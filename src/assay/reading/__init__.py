"""The reading layer: what a text means, below claims and answers.

Everything that decides by meaning lives here, once: names in a text (``names``), how
much a text speaks to a question (``relevance``, a fitted combination of sentence
embeddings and word overlap) and the embedded sentence-embedding model itself
(``embed``). Claims, answers and protocols ask this layer; it imports none of them.
"""
