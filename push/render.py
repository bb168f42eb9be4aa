"""Render bilingual (zh / en) messages from Jinja2 templates.

A message named ``instant`` is ``instant.txt`` (required) and ``instant.html`` (optional) in the
template directory. The text template sets the subject with ``{% set subject %}…{% endset %}``;
both templates receive ``lang`` (``"zh"`` or ``"en"``), ``zh`` (bool) and the caller's context.
HTML is autoescaped, text is not. Texts are translated with ``jinja2.ext.i18n``
(``{% trans %}…{% endtrans %}``, ``{{ _("…") }}``) from the gettext catalogue the caller passes
per language (new-style gettext: ``%(name)s`` parameters).
"""

from __future__ import annotations

import gettext
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from push.errors import RenderError

__all__ = ["Rendered", "Renderer", "language"]


@dataclass(frozen=True)
class Rendered:
    """A rendered message: subject, text and optional HTML."""

    subject: str
    text: str
    html: str | None


def language(code: str | None) -> str:
    """``"zh"`` for any Chinese locale (zh, zh-CN, zh_TW …), else ``"en"``."""
    return "zh" if (code or "zh").lower().startswith("zh") else "en"


class Renderer:
    """Loads templates from ``template_dir`` once and renders messages from them."""

    def __init__(
        self,
        template_dir: str | Path,
        translations: Mapping[str, gettext.NullTranslations] | None = None,
    ) -> None:
        self.template_dir = str(template_dir)
        self.translations = dict(translations or {})
        self.envs = {code: self._env(code) for code in ("zh", "en")}
        self.env = self.envs["zh"]

    def _env(self, code: str) -> jinja2.Environment:
        env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(self.template_dir),
            autoescape=jinja2.select_autoescape(
                enabled_extensions=("html",), default_for_string=False
            ),
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            auto_reload=False,
            extensions=["jinja2.ext.i18n"],
        )
        catalogue = self.translations.get(code, gettext.NullTranslations())
        env.install_gettext_translations(catalogue, newstyle=True)  # type: ignore[attr-defined]
        return env

    def render(self, name: str, lang: str | None, **context: Any) -> Rendered:
        code = language(lang)
        values = {"lang": code, "zh": code == "zh", **context}
        try:
            env = self.envs[code]
            module = env.get_template(f"{name}.txt").make_module(values)
            subject = " ".join(str(getattr(module, "subject", "")).split())
            text = str(module).strip() + "\n"
            try:
                html_template = env.get_template(f"{name}.html")
            except jinja2.TemplateNotFound:
                html = None
            else:
                html = html_template.render(values)
        except jinja2.TemplateError as exc:
            raise RenderError(f"template {name!r} failed: {exc}") from exc
        if not subject:
            raise RenderError(f"template {name}.txt sets no subject")
        return Rendered(subject=subject, text=text, html=html)
