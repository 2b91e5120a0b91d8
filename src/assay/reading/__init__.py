"""The reading layer: what code reads off text, below claims and answers.

Its first part is ``embed``: sentence vectors from the bundled all-MiniLM-L6-v2 model, run
offline on onnxruntime. Importing this package (or ``embed``) loads nothing heavy; numpy,
onnxruntime and tokenizers load with the model, on first use.
"""
