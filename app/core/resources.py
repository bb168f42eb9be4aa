"""Where the data files the service needs are: templates/, alembic/ and alembic.ini.

In the source checkout they are the top-level folders. An installed wheel carries copies under
``app/_data/`` (mapped in by the build backend, see ``pyproject.toml``), found through
``importlib.resources``, so an installed ``timelypush`` runs from any directory without the
source tree.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from app.core.config import ROOT

PACKAGED = "_data"


def data_path(name: str) -> Path:
    """``templates``, ``alembic`` or ``alembic.ini``: the packaged copy, else the checkout's."""
    packaged = Path(str(files("app") / PACKAGED / name))
    return packaged if packaged.exists() else ROOT / name
