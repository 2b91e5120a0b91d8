"""The reading layer: what code reads off text, below claims and answers.

Everything that decides by meaning lives here, once: names in a text (``names``), how
much a text speaks to a question (``relevance``, a fitted combination of sentence
embeddings and word overlap), the passages a model reads around a sentence
(``passages``), and the bundled sentence-embedding model itself (``embed``:
all-MiniLM-L6-v2, run offline on onnxruntime). Claims, answers and protocols ask this
layer; it imports none of them. Importing this package loads nothing heavy; numpy,
onnxruntime and tokenizers load with the model, on first use.
"""
