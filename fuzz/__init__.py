"""Atheris harnesses for utf8guard; ``python -m fuzz`` runs them (fuzz/README.md)."""
