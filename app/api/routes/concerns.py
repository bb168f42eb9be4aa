"""``/api/v1/concerns``: the caller's concerns, their crawl runs and harvest series."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Path, Query, Request, Response, status

from app.api.deps import CurrentUser, OwnedConcern, ProbeDep, SessionDep, SettingsDep
from app.api.errors import responses
from app.api.schemas import TOTAL_COUNT, TOTAL_HEADER, LearnedTerm, LearnedTerms, WithTotal
from app.models import Concern, ConcernCreate, ConcernPublic, ConcernUpdate, CrawlRunPublic
from app.services import concerns, feedback, runs, visits
from app.services.errors import Conflict
from app.services.runs import HarvestPoint

router = APIRouter(prefix="/concerns", tags=["concerns"], responses=responses(401, 422))

_CREATE_EXAMPLES = {
    "zh": {
        "summary": "Chinese keywords, full-width commas are fine",
        "value": {"seed_url": "www.example.com/news/", "keywords": "芯片，半导体、光刻机"},
    },
    "full": {
        "summary": "All options",
        "value": {
            "seed_url": "https://news.example.com/tech/",
            "keywords": ["machine learning", "AI"],
            "exclude": ["advertisement"],
            "strategy": "adaptive",
            "params": {"alpha": 0.85},
            "scope": "host",
            "priority": 3,
            "max_pages": 200,
            "push_mode": "instant",
        },
    },
}


@router.get("", responses=TOTAL_COUNT, summary="The caller's concerns, newest first")
def list_concerns(
    user: CurrentUser, session: SessionDep, response: Response, with_total: WithTotal = False
) -> list[ConcernPublic]:
    found = concerns.to_public(session, concerns.list_concerns(session, user))
    if with_total:
        response.headers[TOTAL_HEADER] = str(len(found))
    return found


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    summary="Add a concern (URL checked, keywords normalised, first visit scheduled)",
)
def create_concern(
    user: CurrentUser,
    session: SessionDep,
    settings: SettingsDep,
    probe: ProbeDep,
    request: Request,
    response: Response,
    body: ConcernCreate = Body(openapi_examples=_CREATE_EXAMPLES),  # type: ignore[arg-type]
) -> ConcernPublic:
    concern = concerns.create_concern(session, user, body, probe=probe, settings=settings)
    session.commit()
    response.headers["Location"] = f"{request.url.path.rstrip('/')}/{concern.id}"
    return concerns.concern_public(session, concern)


@router.get("/{concern_id}", responses=responses(404), summary="One concern")
def get_concern(concern: OwnedConcern, session: SessionDep) -> ConcernPublic:
    return concerns.concern_public(session, concern)


@router.patch("/{concern_id}", responses=responses(404), summary="Change a concern")
def update_concern(
    concern: OwnedConcern,
    body: ConcernUpdate,
    session: SessionDep,
    settings: SettingsDep,
    probe: ProbeDep,
) -> ConcernPublic:
    updated = concerns.apply_update(session, concern, body, probe=probe, settings=settings)
    session.commit()
    return concerns.concern_public(session, updated)


@router.delete(
    "/{concern_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=responses(404),
    summary="Delete a concern and its messages",
)
def delete_concern(concern: OwnedConcern, session: SessionDep) -> None:
    concerns.remove(session, concern)
    session.commit()


@router.post(
    "/{concern_id}/check-now",
    status_code=status.HTTP_202_ACCEPTED,
    responses=responses(404, 409, 429),
    summary="Visit the site right away (accepted: the visit runs in the background; "
    "its result appears under /runs)",
    description="Queues a visit now (``next_visit_at`` becomes now). When the site is being "
    "crawled already, nothing is queued and ``crawling_since`` says since when. 409 "
    "``concern_paused`` when no visit would happen.",
)
def check_now(
    concern: OwnedConcern, user: CurrentUser, session: SessionDep, settings: SettingsDep
) -> ConcernPublic:
    visit = visits.visit_now(session, user, concern, settings=settings)
    session.commit()
    if visit.reason is visits.RefusedBecause.PAUSED:
        raise Conflict("The concern is paused; resume it first.", code=visit.reason)
    public = concerns.concern_public(session, visit.concern)
    if visit.state is visits.VisitState.RUNNING:
        public.crawling_since = visit.since
    return public


@router.get(
    "/{concern_id}/runs", responses={**responses(404), **TOTAL_COUNT}, summary="Recent crawl runs"
)
def list_runs(
    concern: OwnedConcern,
    session: SessionDep,
    response: Response,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    with_total: WithTotal = False,
) -> list[CrawlRunPublic]:
    if with_total:
        response.headers[TOTAL_HEADER] = str(runs.count_runs_of(session, concern))
    return [CrawlRunPublic.model_validate(r) for r in runs.runs_of(session, concern, limit=limit)]


@router.get(
    "/{concern_id}/harvest",
    responses=responses(404),
    summary="Harvest rate per run (oldest first), for charts",
)
def harvest(
    concern: OwnedConcern,
    session: SessionDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 30,
) -> list[HarvestPoint]:
    return runs.harvest_of(session, concern, limit=limit)


Term = Annotated[str, Path(min_length=1, max_length=100, description="A learned term")]


def _learned(session: SessionDep, concern: OwnedConcern) -> LearnedTerms:
    assert concern.id is not None
    return LearnedTerms(
        terms=[LearnedTerm(term=t.term, weight=t.weight) for t in feedback.learned_terms(concern)],
        blocked=list(concern.blocked_terms),
        synonyms=list(concern.synonyms),
        feedback=feedback.feedback_count(session, concern.id),
    )


def _changed(session: SessionDep, concern: Concern) -> LearnedTerms:
    """Commit a change to the concern's learned terms; what it learned now."""
    session.commit()
    return _learned(session, concern)


@router.get(
    "/{concern_id}/learned",
    responses=responses(404),
    summary="The terms the concern's model learned from its pages and the caller's feedback",
)
def get_learned(concern: OwnedConcern, session: SessionDep) -> LearnedTerms:
    return _learned(session, concern)


@router.post(
    "/{concern_id}/learned/{term}/block",
    responses=responses(404),
    summary="Remove a learned term: the model never uses it again for this concern",
)
def block_term(concern: OwnedConcern, term: Term, session: SessionDep) -> LearnedTerms:
    return _changed(session, feedback.block(session, concern, term))


@router.post(
    "/{concern_id}/learned/{term}/restore",
    responses=responses(404),
    summary="Give a removed term back: the model may learn it again from its next visit",
)
def restore_term(concern: OwnedConcern, term: Term, session: SessionDep) -> LearnedTerms:
    return _changed(session, feedback.restore(session, concern, term))


@router.post(
    "/{concern_id}/learned/{term}/promote",
    responses=responses(404),
    summary="Make a learned term a synonym of the concern's keywords",
)
def promote_term(concern: OwnedConcern, term: Term, session: SessionDep) -> LearnedTerms:
    return _changed(session, feedback.promote(session, concern, term))
