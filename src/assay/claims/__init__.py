"""Claims and their verification: mechanical checks, independence, judging and status."""
