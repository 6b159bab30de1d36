"""Benchmarks (a package so that `python -m benchmarks.suite` works from the repository root)."""
