"""Engines that do a model's work without one (today: the extractive engine).

An engine plans queries, picks claim sentences and judges evidence. The extractive engine
does all three with deterministic text heuristics, so assay runs with no keys and no
network; a configured model replaces it step by step through the same interfaces.
"""
