"""A tiny lab web (two portals, a slice of the real corpus or the suite's own) for the lab tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from lab.builder import build


def slice_corpus(shared: Path, target: Path, step: int = 8) -> Path:
    """Every ``step``-th line of each corpus file (all categories, a few hundred lines)."""
    target.mkdir(parents=True, exist_ok=True)
    for name in ("toutiao.dev.txt", "thucnews_titles.dev.txt", "cnews.dev.txt"):
        lines = (shared / "corpus" / name).read_text(encoding="utf-8").splitlines()
        keep = lines[:: step if name != "cnews.dev.txt" else 2]
        (target / name).write_text("\n".join(keep) + "\n", encoding="utf-8")
    return target


FIXTURE_CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus"
"""A small made-up corpus of the suite's own (tests/fixtures/corpus/generate.py)."""


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A slice of the real corpora in ../shared/data, else the suite's own small corpus."""
    from tests.environment import CI, SHARED_DATA

    if (SHARED_DATA / "corpus").is_dir():
        return slice_corpus(SHARED_DATA, tmp_path_factory.mktemp("corpus"))
    if CI:
        pytest.fail(f"{SHARED_DATA} is missing", pytrace=False)
    return FIXTURE_CORPUS


@pytest.fixture(scope="module")
def small_web(small_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("web")
    build(small_corpus, out, seed=7, sites=2, articles=120)
    return out
