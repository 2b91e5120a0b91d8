"""``python -m assay.cli`` runs the command line (benchmarks use it)."""

from assay.cli.app import main

main()
