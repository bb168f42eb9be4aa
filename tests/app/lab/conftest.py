"""A tiny lab web (two portals, a slice of the real corpus) shared by the lab tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.lab.builder import build


def slice_corpus(shared: Path, target: Path, step: int = 8) -> Path:
    """Every ``step``-th line of each corpus file (all categories, a few hundred lines)."""
    target.mkdir(parents=True, exist_ok=True)
    for name in ("toutiao.dev.txt", "thucnews_titles.dev.txt", "cnews.dev.txt"):
        lines = (shared / "corpus" / name).read_text(encoding="utf-8").splitlines()
        keep = lines[:: step if name != "cnews.dev.txt" else 2]
        (target / name).write_text("\n".join(keep) + "\n", encoding="utf-8")
    return target


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.conftest import SHARED_DATA

    if not (SHARED_DATA / "corpus").is_dir():
        pytest.skip(f"{SHARED_DATA} is not here")
    return slice_corpus(SHARED_DATA, tmp_path_factory.mktemp("corpus"))


@pytest.fixture(scope="module")
def small_web(small_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("web")
    build(small_corpus, out, seed=7, sites=2, articles=120)
    return out
