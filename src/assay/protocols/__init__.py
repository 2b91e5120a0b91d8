"""Research protocols, each composed from gather → claims → verify → report."""
