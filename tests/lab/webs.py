"""Lab webs of the real corpus that several lab tests crawl."""

from __future__ import annotations

from pathlib import Path

import pytest

from lab.builder import build


def flat_webs(factory: pytest.TempPathFactory, seeds: tuple[int, ...]) -> list[Path]:
    """Small Chinese webs (two portals each) of the real corpus, one per builder seed: flat
    URLs, the portal's name as the only title suffix. Skipped without ../shared (a failure
    under CI)."""
    from tests.environment import CI, SHARED_DATA

    corpus = SHARED_DATA / "corpus"
    if not corpus.is_dir():
        if CI:
            pytest.fail(f"{SHARED_DATA} is missing", pytrace=False)
        pytest.skip(f"needs the labelled corpus in {corpus}")
    webs = []
    for seed in seeds:
        out = factory.mktemp(f"flat{seed}")
        build(corpus, out, seed=seed, sites=2, articles=300, titles="site", urls="flat")
        webs.append(out)
    return webs
