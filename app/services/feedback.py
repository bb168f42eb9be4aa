"""The user's verdicts on their messages (👍 / 👎) as training examples for the judgment model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlmodel import Session, col, select

from app.models import Match, Page

if TYPE_CHECKING:
    from crawler import Example

__all__ = ["feedback_examples"]


def feedback_examples(session: Session, concern_id: int, limit: int = 500) -> list[Example]:
    """The concern's matches the user judged, newest first, as ``crawler.Example``s."""
    from crawler import Example

    stmt = (
        select(Match.feedback, Page.title, Page.description, Page.excerpt)
        .join(Page, col(Page.id) == col(Match.page_id))
        .where(Match.concern_id == concern_id, col(Match.feedback).is_not(None))
        .order_by(col(Match.feedback_at).desc(), col(Match.id).desc())
        .limit(limit)
    )
    return [
        Example(title=title or "", text=f"{desc or ''}\n{excerpt or ''}", label=(fb or 0) > 0)
        for fb, title, desc, excerpt in session.exec(stmt)
    ]
