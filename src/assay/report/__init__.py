"""Reports: how they mark claims and cite sources, so ``assay verify`` can re-check them."""
