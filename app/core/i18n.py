"""Every text a person sees, in their language: gettext catalogues for Chinese and English.

The catalogues are ``app/locale/<lang>/LC_MESSAGES/messages.po`` (compiled to ``.mo``, both
in the repository and in the wheel). Message ids are the English text with ``%(name)s``
placeholders (a literal percent sign is ``%%``); the English catalogue translates every id too,
so ids with a prefix (``status:running``) read naturally. Pages and emails use them through
``jinja2.ext.i18n`` (``{{ _("…") }}``, ``{% trans %}``), Python code through :func:`translate`;
service errors carry their id and parameters and are translated where they are shown.

Extract, update and compile with ``make i18n`` (``pybabel``, configured in ``babel.cfg``); a
test checks that every id has a Chinese and an English text and that the ``.mo`` files are
current.
"""

from __future__ import annotations

import gettext as _gettext
import logging
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

LANGUAGES = ("zh", "en")
DEFAULT = "zh"
DOMAIN = "messages"


def locale_dir() -> Path:
    """``app/locale``: inside the package, so an installed wheel carries it."""
    return Path(str(files("app") / "locale"))


def N_(msgid: str) -> str:
    """Mark ``msgid`` for extraction where it is translated later (dynamic keys, errors)."""
    return msgid


def language(code: str | None) -> str:
    """One of LANGUAGES for a stored or requested code; Chinese when it is none of them."""
    return code if code in LANGUAGES else DEFAULT


@cache
def translations(lang: str) -> _gettext.NullTranslations:
    """The compiled catalogue of ``lang`` (loaded once per process)."""
    try:
        return _gettext.translation(DOMAIN, str(locale_dir()), languages=[language(lang)])
    except OSError:
        logger.error("no compiled %s catalogue under %s", lang, locale_dir())
        return _gettext.NullTranslations()


def has(lang: str, msgid: str) -> bool:
    """True when ``lang``'s catalogue translates ``msgid``."""
    catalogue = getattr(translations(lang), "_catalog", {})
    return msgid in catalogue


def translate(lang: str, msgid: str, **params: Any) -> str:
    """The text for ``msgid`` in ``lang`` with ``%(params)s`` filled in.

    An id missing from the catalogue is shown as written (English) and logged.
    """
    text = translations(lang).gettext(msgid)
    if text is msgid and msgid and not has(lang, msgid):
        logger.warning("no %s translation for %r", lang, msgid)
    try:
        return text % params
    except (KeyError, TypeError, ValueError):
        logger.warning("bad parameters for message %r", msgid)
        return text


def negotiate(accept_language: str | None, default: str = DEFAULT) -> str:
    """The best of LANGUAGES for an Accept-Language header; ``default`` when nothing fits."""
    if not accept_language:
        return default
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate(accept_language.split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        primary = tag.strip().lower().split("-")[0]
        if primary in LANGUAGES and quality > 0:
            ranked.append((-quality, index, primary))
    return sorted(ranked)[0][2] if ranked else default


__all__ = [
    "DEFAULT",
    "LANGUAGES",
    "N_",
    "has",
    "language",
    "locale_dir",
    "negotiate",
    "translate",
    "translations",
]
