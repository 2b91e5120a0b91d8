"""The local web lab: a corpus served as websites on loopback, with search and faults.

with serve_lab(corpus, sites=3) as lab:
    lab.sites        # ["http://127.0.0.2:PORT", "http://127.0.0.3:PORT", ...]
    lab.search_url   # SearxNG-compatible: GET /search?q=...&format=json
    lab.pages        # [(url, Document), ...]
    lab.hits("/fault/")  # [(site, target, monotonic time), ...]
"""

from assay.lab.pages import INJECTIONS, ROBOTS_TXT, LabPage
from assay.lab.server import Lab, serve_lab

__all__ = ["INJECTIONS", "ROBOTS_TXT", "Lab", "LabPage", "serve_lab"]
