"""Benchmarks: each module registers one `timelypush bench` command."""
