"""Gathering: everything that brings outside text into a run (search, fetch, extract, index)."""
