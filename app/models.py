"""SQLModel tables and their Create / Update / Public schemas.

Timestamps are timezone-aware UTC (``UTCDateTime`` restores the zone on SQLite, which keeps
none). Uniqueness the business depends on lives in the database:
one page per canonical URL, one match per concern × page (and per concern × content
fingerprint, so a reprint never matches twice), one delivery per idempotency key.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from pydantic import field_validator
from pydantic_core import PydanticCustomError
from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    Column,
    DateTime,
    Index,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.orm import defer
from sqlmodel import Field, SQLModel, select
from sqlmodel.sql.expression import SelectOfScalar

from crawler import CrawlConfig
from crawler.strategies import STRATEGIES as CRAWLER_STRATEGIES


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """DateTime that is always timezone-aware UTC in Python, on every backend."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime refused; use timezone-aware UTC")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


def ts(*, nullable: bool = True, index: bool = False, default: bool = False) -> Any:
    """A timestamp column."""
    return Field(
        default_factory=utcnow if default else lambda: None,
        sa_column=Column(UTCDateTime(), nullable=nullable, index=index),
    )


def json_list() -> Any:
    return Field(default_factory=list, sa_column=Column(JSON, nullable=False))


def json_dict() -> Any:
    return Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


# --- domain values ---------------------------------------------------------------------------
# One source for every closed set of values the tables hold; migration 0008 backs the stored
# ones with CHECK constraints. StrEnum members are plain strings, so rows, JSON and templates
# see the same values as before.


class DeliveryStatus(StrEnum):
    """Where an outbox row is: waiting, claimed by a sender, sent, to retry, given up."""

    PENDING = "pending"
    SENDING = "sending"
    SENT = "sent"
    FAILED = "failed"
    DEAD = "dead"


class DeliveryKind(StrEnum):
    """What an outbox row sends."""

    INSTANT = "instant"
    """New matches, as they are found."""
    DIGEST = "digest"
    """The daily digest."""
    SUMMARY = "summary"
    """The first visit of a new concern: what is on the site now, in one message."""
    WEBHOOK_GONE = "webhook_gone"
    """Email telling the user their webhook answered 410 and was turned off."""


class DeliveryChannel(StrEnum):
    """How an outbox row is sent."""

    EMAIL = "email"
    WEBHOOK = "webhook"
    SMS = "sms"
    APPRISE = "apprise"
    """One of the user's Apprise push channels (``PushChannel``; the row's target is its id)."""


class PushMode(StrEnum):
    """When a user (or one concern) is told: at once, in the daily digest, both, or never."""

    INSTANT = "instant"
    DIGEST = "digest"
    BOTH = "both"
    OFF = "off"


class ChannelMode(StrEnum):
    """When an Apprise push channel is used."""

    INSTANT = "instant"
    DIGEST = "digest"
    BOTH = "both"


class Scope(StrEnum):
    """Which links of a site a crawl may follow (``crawler.urls.in_scope``)."""

    HOST = "host"
    DOMAIN = "domain"
    ANY = "any"


class PageKind(StrEnum):
    """The crawler's page kinds (``crawler.ITEM`` / ``crawler.HUB``); only items are pushed."""

    ITEM = "item"
    HUB = "hub"


class Scorer(StrEnum):
    """How a concern's pages are judged: the learned topic model (default) or a seed scorer."""

    MODEL = "model"
    KP = "kp"
    FISH = "fish"
    VSM = "vsm"


class Sensitivity(StrEnum):
    """精确 / 均衡 / 宽泛: the push threshold (``crawler.judgment.SENSITIVITY``)."""

    PRECISE = "precise"
    BALANCED = "balanced"
    BROAD = "broad"


DEFAULT_STRATEGY: str = CrawlConfig.strategy
"""The default link strategy, the crawler's: it beat the thesis's topic PageRank and every
other strategy on the lab webs (docs/benchmarks.md, "Focus on the lab web")."""
THESIS_STRATEGY = "topic-pagerank"
"""The seed thesis's best strategy, offered right after the default."""
STRATEGIES: tuple[str, ...] = (
    DEFAULT_STRATEGY,
    THESIS_STRATEGY,
    *(name for name in CRAWLER_STRATEGIES if name not in (DEFAULT_STRATEGY, THESIS_STRATEGY)),
)
"""The crawler's link strategies, in the order the forms offer them."""
SCORERS: tuple[str, ...] = tuple(Scorer)
SENSITIVITIES: tuple[str, ...] = tuple(Sensitivity)
PUSH_MODES: tuple[str, ...] = tuple(PushMode)
CHANNELS: tuple[str, ...] = (DeliveryChannel.EMAIL, DeliveryChannel.WEBHOOK, DeliveryChannel.SMS)
"""The channels of the user's profile (Apprise channels are rows of their own)."""
APPRISE = DeliveryChannel.APPRISE
"""The outbox channel of a user's Apprise push channels (``PushChannel``)."""
CHANNEL_MODES: tuple[str, ...] = tuple(ChannelMode)
SCOPES: tuple[str, ...] = tuple(Scope)


def check_in(column: str, values: Iterable[str], *, name: str) -> CheckConstraint:
    """A CHECK constraint keeping ``column`` (NULL allowed) to ``values``."""
    listed = ", ".join(f"'{v}'" for v in values)
    return CheckConstraint(f"{column} IN ({listed})", name=name)


# --- users and tokens ------------------------------------------------------------------------


class UserBase(SQLModel):
    """The profile fields a user sees and sets."""

    email: str = Field(max_length=320, unique=True, index=True)
    phone: str | None = Field(default=None, max_length=32)
    timezone: str = Field(default="Asia/Shanghai", max_length=64)
    language: str = Field(default="zh", max_length=8)
    push_mode: str = Field(default=PushMode.BOTH, max_length=16)
    digest_time: str = Field(default="08:00", max_length=5)
    quiet_start: str | None = Field(default=None, max_length=5)
    quiet_end: str | None = Field(default=None, max_length=5)
    email_enabled: bool = True
    sms_enabled: bool = False
    webhook_enabled: bool = False
    webhook_url: str | None = Field(default=None, max_length=2048)
    digest_when_empty: bool = False
    webhook_batch: bool = False
    """Group the webhook's instant events like email (one ``match.batch`` per window)."""


class User(UserBase, table=True):
    """An account."""

    __tablename__ = "users"
    __table_args__ = (check_in("push_mode", PUSH_MODES, name="ck_users_push_mode"),)
    id: int | None = Field(default=None, primary_key=True)
    password_hash: str = Field(max_length=255)
    webhook_secret: str | None = Field(default=None, max_length=128)
    is_active: bool = True
    email_verified_at: datetime | None = ts()
    phone_verified_at: datetime | None = ts()
    webhook_disabled_at: datetime | None = ts()
    feed_token: str | None = Field(default=None, max_length=64, unique=True, index=True)
    created_at: datetime = ts(nullable=False, default=True)


class UserPublic(UserBase):
    """An account as its owner sees it."""

    id: int
    email_verified_at: datetime | None = None
    phone_verified_at: datetime | None = None
    webhook_disabled_at: datetime | None = Field(
        default=None,
        description="When pushes to the webhook stopped because it answered 410 Gone (null: "
        "they go out). Setting webhook_enabled to true, or a new webhook_url, starts them again.",
    )
    created_at: datetime


class ApiToken(SQLModel, table=True):
    """A bearer token of the API: only its hash is stored."""

    __tablename__ = "api_tokens"
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="users.id", index=True, ondelete="CASCADE")
    name: str = Field(default="device", max_length=100)
    token_hash: str = Field(max_length=128, unique=True, index=True)
    created_at: datetime = ts(nullable=False, default=True)
    last_used_at: datetime | None = ts()
    expires_at: datetime | None = ts()
    revoked_at: datetime | None = ts()


class ApiTokenPublic(SQLModel):
    """An API token as its owner sees it (never the token itself)."""

    id: int
    name: str
    created_at: datetime
    last_used_at: datetime | None = None
    expires_at: datetime | None = None
    revoked_at: datetime | None = None


class ProfileUpdate(SQLModel):
    """The fields a user may change on their own profile (all optional)."""

    email: str | None = Field(default=None, max_length=320)
    phone: str | None = Field(default=None, max_length=32)
    timezone: str | None = Field(default=None, max_length=64)
    language: str | None = None
    push_mode: str | None = None
    digest_time: str | None = None
    quiet_start: str | None = None
    quiet_end: str | None = None
    email_enabled: bool | None = None
    sms_enabled: bool | None = None
    webhook_enabled: bool | None = None
    webhook_url: str | None = Field(default=None, max_length=2048)
    digest_when_empty: bool | None = None
    webhook_batch: bool | None = None
    current_password: str | None = Field(
        default=None,
        max_length=1024,
        description="The account's password: required to change the email address.",
    )


class RateLimit(SQLModel, table=True):
    """One rate-limit counter (``app.services.throttle``) when no Redis is configured: the
    attempts inside the current window and, for back-off limits, when the next is allowed."""

    __tablename__ = "rate_limits"
    key: str = Field(primary_key=True, max_length=400)
    count: int = 0
    window_ends: datetime = ts(nullable=False, index=True)
    next_at: datetime | None = ts()


class WebSession(SQLModel, table=True):
    """A logged-in browser. The cookie carries a random id; only its hash is stored, so
    logging out, a password change or an administrator ends the session on the server."""

    __tablename__ = "web_sessions"
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="users.id", index=True, ondelete="CASCADE")
    key_hash: str = Field(max_length=64, unique=True, index=True)
    created_at: datetime = ts(nullable=False, default=True)
    last_seen_at: datetime = ts(nullable=False, default=True)


class ResetCode(SQLModel, table=True):
    """A code sent by SMS — to reset the password or to verify the phone number: stored
    hashed, expiring, with an attempt budget."""

    __tablename__ = "reset_codes"
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="users.id", index=True, ondelete="CASCADE")
    code_hash: str = Field(max_length=128)
    purpose: str = Field(default="reset", max_length=16)  # reset | phone (verification)
    attempts: int = 0
    expires_at: datetime = ts(nullable=False)
    used_at: datetime | None = ts()
    created_at: datetime = ts(nullable=False, default=True)


class PushChannel(SQLModel, table=True):
    """One of a user's Apprise push channels (钉钉 / 企业微信 / 飞书 bots, Bark, ntfy, Telegram,
    Server酱, Discord, Slack, …): an Apprise URL, which may hold the service's token."""

    __tablename__ = "push_channels"
    __table_args__ = (check_in("mode", CHANNEL_MODES, name="ck_push_channels_mode"),)
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="users.id", index=True, ondelete="CASCADE")
    name: str = Field(default="", max_length=100)
    url: str = Field(max_length=2048)
    service: str = Field(default="", max_length=64)
    mode: str = Field(default=ChannelMode.INSTANT, max_length=16)
    enabled: bool = True
    created_at: datetime = ts(nullable=False, default=True)


class PushChannelCreate(SQLModel):
    """A new Apprise push channel."""

    name: str = Field(default="", max_length=100)
    url: str = Field(max_length=2048)
    mode: str = "instant"
    enabled: bool = True


class PushChannelUpdate(SQLModel):
    """The fields of a push channel its owner may change."""

    name: str | None = Field(default=None, max_length=100)
    mode: str | None = None
    enabled: bool | None = None


class PushChannelPublic(SQLModel):
    """A channel as its owner sees it: the URL with its secrets masked."""

    id: int
    name: str
    service: str
    url_masked: str
    mode: str
    enabled: bool
    created_at: datetime


# --- sites and concerns ----------------------------------------------------------------------


class Site(SQLModel, table=True):
    """The crawl target shared by every concern on the same seed scope, with revisit state."""

    __tablename__ = "sites"
    __table_args__ = (check_in("scope", SCOPES, name="ck_sites_scope"),)
    id: int | None = Field(default=None, primary_key=True)
    scope_key: str = Field(max_length=2100, unique=True, index=True)
    seed_url: str = Field(max_length=2048)
    scope: str = Field(default=Scope.HOST, max_length=16)
    revisit_t_minutes: float = 200.0
    level: int = 2
    next_visit_at: datetime | None = ts(index=True)
    last_visit_at: datetime | None = ts()
    last_change_at: datetime | None = ts()
    visits: int = 0
    changes: int = 0
    etag: str | None = Field(default=None, max_length=512)
    last_modified: str | None = Field(default=None, max_length=128)
    feed_url: str | None = Field(default=None, max_length=2048)
    min_interval_minutes: float | None = None
    locked_until: datetime | None = ts()
    locked_by: str | None = Field(default=None, max_length=128)
    checkpoint: dict[str, Any] = json_dict()
    created_at: datetime = ts(nullable=False, default=True)


class ConcernBase(SQLModel):
    """A concern's fields: the site, the keywords and how to crawl and push."""

    seed_url: str = Field(max_length=2048)
    keywords: list[str] = json_list()
    exclude: list[str] = json_list()
    synonyms: list[str] = json_list()
    strategy: str = Field(default=DEFAULT_STRATEGY, max_length=32)
    params: dict[str, float] = json_dict()
    scope: str = Field(default=Scope.HOST, max_length=16)
    priority: int = Field(default=0, ge=0, le=5)
    max_pages: int = Field(default=200, ge=1, le=100_000)
    push_mode: str | None = Field(default=None, max_length=16)
    enabled: bool = True
    scorer: str = Field(default=Scorer.MODEL, max_length=16)
    sensitivity: str = Field(default=Sensitivity.BALANCED, max_length=16)


class Concern(ConcernBase, table=True):
    """What a user watches: a site plus keywords, with the model learned for it."""

    __tablename__ = "concerns"
    # the strategy is not constrained: the crawler's list may grow without a migration
    __table_args__ = (
        check_in("scope", SCOPES, name="ck_concerns_scope"),
        check_in("push_mode", PUSH_MODES, name="ck_concerns_push_mode"),
        check_in("scorer", SCORERS, name="ck_concerns_scorer"),
        check_in("sensitivity", SENSITIVITIES, name="ck_concerns_sensitivity"),
    )
    id: int | None = Field(default=None, primary_key=True)
    owner_id: int = Field(foreign_key="users.id", index=True, ondelete="CASCADE")
    site_id: int | None = Field(default=None, foreign_key="sites.id", index=True)
    learned_terms: dict[str, float] = json_dict()
    model_state: dict[str, Any] = json_dict()
    """The judgment model (``crawler.judgment.Judge.state()``) after the last visit."""
    blocked_terms: list[str] = json_list()
    """Learned terms the user removed: the model never uses them again."""
    created_at: datetime = ts(nullable=False, default=True)
    updated_at: datetime = ts(nullable=False, default=True)


def sites_query() -> SelectOfScalar[Site]:
    """``select(Site)`` without the checkpoint, which only a visit reads: it holds the crawl's
    saved state and the site's judgment model with the pages it learns from."""
    return select(Site).options(defer(Site.checkpoint))  # type: ignore[arg-type]


def concerns_query() -> SelectOfScalar[Concern]:
    """``select(Concern)`` without the stored model, which only a visit reads: it holds the
    model's words and the pages it learns from (hundreds of kilobytes a concern), and the
    feeds, lists and deliveries that load concerns need none of it (read on access)."""
    return select(Concern).options(defer(Concern.model_state))  # type: ignore[arg-type]


PARAM_RANGES: dict[str, tuple[float, float]] = {
    "T": (0.0, 10.0),
    "gamma": (0.0, 1.0),
    "W": (1, 1000),
    "a": (1.0, 10.0),
    "D": (0, 50),
}
"""The strategy parameters a concern may set on the form, each with its allowed range (a
concern's ``params`` may hold other names too; only these are checked against a range)."""


def _one_of(v: str | None, choices: tuple[str, ...], text: str) -> str | None:
    """``v`` if it is one of ``choices`` (or None), else a ``literal_error`` saying ``text``."""
    if v is not None and v not in choices:
        expected = ", ".join(repr(str(c)) for c in choices)
        raise PydanticCustomError("literal_error", text, {"expected": expected, "given": v})
    return v


def _check_strategy(v: str | None) -> str | None:
    return _one_of(v, STRATEGIES, f"unknown strategy {v!r}; choose one of {', '.join(STRATEGIES)}")


def _check_scope(v: str | None) -> str | None:
    return _one_of(v, SCOPES, "scope must be host, domain or any")


def _check_scorer(v: str | None) -> str | None:
    return _one_of(v, SCORERS, f"unknown scorer {v!r}; choose one of {', '.join(SCORERS)}")


def _check_sensitivity(v: str | None) -> str | None:
    return _one_of(v, SENSITIVITIES, f"sensitivity must be one of {', '.join(SENSITIVITIES)}")


def _as_number(value: Any) -> float | None:
    """``value`` as a number the way the model parses one (None: not a number)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def _check_param_ranges(v: Any) -> Any:
    """The parameters of ``PARAM_RANGES`` must be numbers within their range; the error names
    the parameter in its ``key``."""
    if isinstance(v, dict):
        for key, (low, high) in PARAM_RANGES.items():
            if key in v:
                number = _as_number(v[key])
                if number is None or not low <= number <= high:
                    raise PydanticCustomError(
                        "number_range",
                        "strategy parameter {key} must be a number from {low} to {high}",
                        {"key": key, "low": low, "high": high},
                    )
    return v


class ConcernCreate(SQLModel):
    """A new concern; keywords may be a list or one comma-separated string."""

    seed_url: str = Field(max_length=2048)
    keywords: list[str] | str
    exclude: list[str] | str = []
    synonyms: list[str] | str = []
    strategy: str = Field(
        default=DEFAULT_STRATEGY, schema_extra={"json_schema_extra": {"enum": list(STRATEGIES)}}
    )
    params: dict[str, float] = {}
    scope: str = Field(default="host", schema_extra={"json_schema_extra": {"enum": list(SCOPES)}})
    priority: int = Field(default=0, ge=0, le=5)
    max_pages: int = Field(default=200, ge=1, le=100_000)
    push_mode: str | None = Field(
        default=None, schema_extra={"json_schema_extra": {"enum": [*PUSH_MODES, None]}}
    )
    enabled: bool = True
    scorer: str = Field(
        default=Scorer.MODEL, schema_extra={"json_schema_extra": {"enum": list(SCORERS)}}
    )
    sensitivity: str = Field(
        default=Sensitivity.BALANCED,
        schema_extra={"json_schema_extra": {"enum": list(SENSITIVITIES)}},
    )

    _strategy = field_validator("strategy")(_check_strategy)
    _scope = field_validator("scope")(_check_scope)
    _scorer = field_validator("scorer")(_check_scorer)
    _sensitivity = field_validator("sensitivity")(_check_sensitivity)
    _params = field_validator("params", mode="before")(_check_param_ranges)


class ConcernUpdate(SQLModel):
    """The fields of a concern its owner may change (all optional)."""

    seed_url: str | None = None
    keywords: list[str] | str | None = None
    exclude: list[str] | str | None = None
    synonyms: list[str] | str | None = None
    strategy: str | None = Field(
        default=None, schema_extra={"json_schema_extra": {"enum": [*STRATEGIES, None]}}
    )
    params: dict[str, float] | None = None
    scope: str | None = Field(
        default=None, schema_extra={"json_schema_extra": {"enum": [*SCOPES, None]}}
    )
    priority: int | None = Field(default=None, ge=0, le=5)
    max_pages: int | None = Field(default=None, ge=1, le=100_000)
    push_mode: str | None = Field(
        default=None, schema_extra={"json_schema_extra": {"enum": [*PUSH_MODES, None]}}
    )
    enabled: bool | None = None
    scorer: str | None = Field(
        default=None, schema_extra={"json_schema_extra": {"enum": [*SCORERS, None]}}
    )
    sensitivity: str | None = Field(
        default=None, schema_extra={"json_schema_extra": {"enum": [*SENSITIVITIES, None]}}
    )

    _strategy = field_validator("strategy")(_check_strategy)
    _scope = field_validator("scope")(_check_scope)
    _scorer = field_validator("scorer")(_check_scorer)
    _sensitivity = field_validator("sensitivity")(_check_sensitivity)
    _params = field_validator("params", mode="before")(_check_param_ranges)


class ConcernPublic(ConcernBase):
    """A concern as its owner sees it, with its site's next visit."""

    id: int
    site_id: int | None = None
    learned_terms: dict[str, float] = {}
    created_at: datetime
    updated_at: datetime
    next_visit_at: datetime | None = None
    revisit_level: int | None = None
    crawling_since: datetime | None = None
    """When the crawl of the site now running started (None: no crawl is running)."""


# --- pages, links, matches -------------------------------------------------------------------


class Page(SQLModel, table=True):
    """A fetched page, once per canonical URL."""

    __tablename__ = "pages"
    id: int | None = Field(default=None, primary_key=True)
    canonical_url: str = Field(max_length=2048, unique=True, index=True)
    final_url: str = Field(max_length=2048)
    site_id: int | None = Field(default=None, foreign_key="sites.id", index=True)
    title: str = Field(default="", max_length=1000)
    meta_keywords: str = Field(default="", max_length=2000)
    description: str = Field(default="", max_length=4000)
    excerpt: str = Field(default="", max_length=4000)
    content_hash: str = Field(default="", max_length=64, index=True)
    simhash: int = Field(default=0, sa_column=Column(BigInteger, nullable=False, default=0))
    status: int = 200
    first_seen_at: datetime = ts(nullable=False, default=True)
    last_seen_at: datetime = ts(nullable=False, default=True)


class Link(SQLModel, table=True):
    """A link between fetched pages, with its anchor text."""

    __tablename__ = "links"
    __table_args__ = (UniqueConstraint("src_page_id", "dst_url", name="uq_link_src_dst"),)
    id: int | None = Field(default=None, primary_key=True)
    src_page_id: int = Field(foreign_key="pages.id", index=True, ondelete="CASCADE")
    dst_url: str = Field(max_length=2048, index=True)
    anchor: str = Field(default="", max_length=500)


class Match(SQLModel, table=True):
    """A page pushed to a concern's owner: one per concern × page."""

    __tablename__ = "matches"
    __table_args__ = (
        UniqueConstraint("concern_id", "page_id", name="uq_match_concern_page"),
        UniqueConstraint("concern_id", "fingerprint", name="uq_match_concern_fingerprint"),
        Index("ix_matches_user_feed", "user_id", "deleted_at", "created_at", "id"),
        Index("ix_matches_concern_created", "concern_id", "created_at"),
        check_in("kind", tuple(PageKind), name="ck_matches_kind"),
    )
    id: int | None = Field(default=None, primary_key=True)
    concern_id: int = Field(foreign_key="concerns.id", ondelete="CASCADE")
    page_id: int = Field(foreign_key="pages.id", index=True, ondelete="CASCADE")
    user_id: int = Field(foreign_key="users.id", ondelete="CASCADE")
    fingerprint: str = Field(max_length=64)
    score: float = 0.0
    matched_keywords: list[str] = json_list()
    explanation: dict[str, Any] = json_dict()
    title: str = Field(default="", max_length=1000)
    url: str = Field(default="", max_length=2048)
    snippet: str = Field(default="", max_length=2000)
    read_at: datetime | None = ts()
    deleted_at: datetime | None = ts()
    created_at: datetime = ts(nullable=False, default=True)
    probability: float | None = None
    """The judgment model's probability (None when a seed scorer decided)."""
    kind: str = Field(default=PageKind.ITEM, max_length=8)
    feedback: int | None = None
    """The user's verdict: 1 relevant (👍), -1 not relevant (👎), None not given."""
    feedback_at: datetime | None = ts()


class MatchPublic(SQLModel):
    """A pushed message as its owner sees it."""

    id: int
    concern_id: int
    page_id: int
    title: str
    url: str
    snippet: str
    score: float
    matched_keywords: list[str]
    """The user's own keywords and synonyms the page matched."""
    learned_terms: list[str] = []
    """Words the concern's model learned that counted for the page (not the user's)."""
    explanation: dict[str, Any]
    read: bool
    created_at: datetime
    probability: float | None = None
    feedback: int | None = None
    why: str = ""
    """Why it was pushed, in the user's language (keyword hits and where, learned terms,
    the model's probability, the page kind, the verdicts that shaped the model)."""


# --- push outbox ----------------------------------------------------------------------------


class Delivery(SQLModel, table=True):
    """The outbox: one row per message to send, written before sending."""

    __tablename__ = "deliveries"
    __table_args__ = (
        Index("ix_deliveries_due", "status", "next_attempt_at"),
        check_in("status", tuple(DeliveryStatus), name="ck_deliveries_status"),
        check_in("kind", tuple(DeliveryKind), name="ck_deliveries_kind"),
        check_in("channel", tuple(DeliveryChannel), name="ck_deliveries_channel"),
    )
    id: int | None = Field(default=None, primary_key=True)
    idempotency_key: str = Field(max_length=200, unique=True, index=True)
    user_id: int = Field(foreign_key="users.id", index=True, ondelete="CASCADE")
    match_id: int | None = Field(
        default=None, foreign_key="matches.id", index=True, ondelete="CASCADE"
    )
    match_ids: list[int] = json_list()
    digest_date: str | None = Field(default=None, max_length=10)
    kind: str = Field(default=DeliveryKind.INSTANT, max_length=16)
    channel: str = Field(max_length=16)
    target: str = Field(default="", max_length=2048)
    status: str = Field(default=DeliveryStatus.PENDING, max_length=16)
    attempts: int = 0
    next_attempt_at: datetime | None = ts(default=True)
    last_error: str | None = Field(default=None, max_length=2000)
    merged_into_id: int | None = Field(default=None, foreign_key="deliveries.id", index=True)
    """An instant push merged into another row's message: that row (this one shares its fate)."""
    sent_at: datetime | None = ts()
    created_at: datetime = ts(nullable=False, default=True)


class DeliveryPublic(SQLModel):
    """One outbox row as its owner sees it."""

    id: int
    match_id: int | None
    digest_date: str | None
    kind: str
    channel: str
    status: str
    attempts: int
    last_error: str | None
    merged_into_id: int | None = None
    """Sent as part of this other delivery's message (instant pushes found together)."""
    sent_at: datetime | None
    created_at: datetime


# --- crawl runs ------------------------------------------------------------------------------


class CrawlRun(SQLModel, table=True):
    """One visit of a site: when, with which strategy, and what it found."""

    __tablename__ = "crawl_runs"
    __table_args__ = (Index("ix_crawl_runs_site_started", "site_id", "started_at"),)
    id: int | None = Field(default=None, primary_key=True)
    site_id: int = Field(foreign_key="sites.id", ondelete="CASCADE")
    strategy: str = Field(max_length=32)
    status: str = Field(default="running", max_length=16)
    started_at: datetime = ts(nullable=False, default=True)
    finished_at: datetime | None = ts()
    pages_fetched: int = 0
    pages_new: int = 0
    pages_matched: int = 0
    errors: int = 0
    error: str | None = Field(default=None, max_length=2000)
    stats: dict[str, Any] = json_dict()


class CrawlRunPublic(SQLModel):
    """A crawl run as the owner of a concern on its site sees it."""

    id: int
    site_id: int
    strategy: str
    status: str
    started_at: datetime
    finished_at: datetime | None
    pages_fetched: int
    pages_new: int
    pages_matched: int
    errors: int
    error: str | None
    stats: dict[str, Any]
