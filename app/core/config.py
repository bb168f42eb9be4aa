"""The one settings object. Every field is documented in README's configuration table.

Environment variables use the prefix ``TIMELYPUSH_`` (``TIMELYPUSH_DATABASE_URL`` …). The
defaults are the embedded mode: a SQLite file under ``./var/``, no Redis, no other server.
"""

from __future__ import annotations

import os
import secrets
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

ROOT = Path(__file__).resolve().parents[2]
"""The project checkout (an installed wheel finds its data files through app.core.resources)."""


class Settings(BaseSettings):
    """Every setting of the service, read from ``TIMELYPUSH_*`` variables or ``.env``."""

    model_config = SettingsConfigDict(
        env_prefix="TIMELYPUSH_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    # --- service -----------------------------------------------------------------------
    var_dir: Path = Field(Path("var"), description="Directory for the SQLite file and secrets.")
    database_url: str = Field(
        "", description="SQLAlchemy URL; empty = sqlite:///<var_dir>/timelypush.db"
    )
    redis_url: str | None = Field(
        None, description="Redis URL; set it to run crawls on Celery workers (scaled-out mode)."
    )
    secret_key: str = Field(
        "", description="Signs sessions and links; empty = generated once into var/secret_key."
    )
    base_url: str = Field(
        "http://127.0.0.1:8000", description="Public URL of the service, used in emails."
    )
    host: str = Field("127.0.0.1", description="Default bind host of `timelypush serve`.")
    port: int = Field(8000, description="Default port of `timelypush serve`.")
    forwarded_allow_ips: str = Field(
        "127.0.0.1",
        description="Proxies and load balancers trusted to say who the client is "
        "(X-Forwarded-For, X-Forwarded-Proto): comma-separated addresses or networks, `*` for "
        "any. Sign-in and sign-up limits count per client address: behind a proxy not listed "
        "here every visitor shares the proxy's.",
    )
    secure_cookies: bool | None = Field(
        None,
        description="Mark session cookies Secure (sent over HTTPS only); unset: when "
        "TIMELYPUSH_BASE_URL is an https:// address.",
    )
    log_level: str = Field("INFO", description="Logging level.")
    scheduler_enabled: bool = Field(
        True, description="Run the in-process scheduler inside `serve` when no Redis is set."
    )
    scheduler_tick_seconds: float = Field(
        60.0,
        description="How often the scheduler looks for due sites and due deliveries, seconds.",
    )
    revisit_policy: Literal["default", "seed", "seed-clamped"] = Field(
        "default",
        description="Revisit policy: default (change-rate estimate, visits ∝ √(priority·rate) "
        "under the budget), seed (the seed's levels as written) or seed-clamped.",
    )
    revisit_budget_per_day: float = Field(
        0.0,
        description="Fetch budget of the default revisit policy, site visits per day over all "
        "sites; 0 = as many as visiting every site every 200 minutes.",
    )
    revisit_feed_signal: bool = Field(
        True,
        description="Ask a site's RSS/Atom feed first; a 304 or only known items = unchanged "
        "visit without a crawl.",
    )
    token_cache_seconds: float = Field(
        2.0,
        ge=0,
        description="How long a worker trusts a bearer token it checked (revocations reach the "
        "other worker processes within this time; 0 = check every request).",
    )
    crawl_lock_seconds: float = Field(
        900.0,
        description="Lease of a due visit handed to the queue: a visit that never starts "
        "(queue lost) is handed out again after it.",
    )
    crawl_heartbeat_seconds: float = Field(
        20.0,
        gt=0,
        description="A crawl renews its site's lock this often; the lock expires after three "
        "missed beats, so a killed worker's site is taken over within a minute.",
    )
    crawl_time_limit: float = Field(
        600.0, description="Wall-clock limit of one site visit, seconds (Celery hard limit +60)."
    )

    rate_limits: str = Field(
        "",
        description="Rate-limit overrides, e.g. `login=5/15m,reset_email=3/1h` (names and "
        "defaults in app/services/throttle.py; README lists them).",
    )
    api_token_days: int = Field(
        90, ge=1, description="Lifetime of an API token, days; refreshing starts it again."
    )

    # --- crawler -------------------------------------------------------------------------
    user_agent: str = Field(
        "TimelyPush/0.1 (+https://github.com/timelypush/timelypush)",
        description="User-Agent sent by the crawler, with a contact URL.",
    )
    url_allowlist: str = Field(
        "",
        description="Comma-separated hosts and CIDRs the URL guard lets through "
        "(intranet sites, tests).",
    )
    proxy: str | None = Field(None, description="HTTP proxy for all crawler traffic.")
    metrics_token: str | None = Field(
        None,
        description="Bearer token GET /metrics asks for; without one it answers only the "
        "machine itself (loopback).",
    )
    crawl_concurrency: int = Field(16, description="Global concurrent requests per crawl.")
    crawl_per_host: int = Field(2, description="Concurrent requests per host.")
    crawl_delay: float = Field(1.0, description="Minimum seconds between requests to one host.")
    crawl_max_pages: int = Field(200, description="Default page budget of one site visit.")
    crawl_first_visit_factor: float = Field(
        5.0,
        ge=1.0,
        description="A concern's first visit reads this many times its page budget (still within "
        "`crawl_time_limit`): its model has no earlier visit to start from and learns the site's "
        "topic from this one; 1 turns it off.",
    )
    crawl_timeout: float = Field(20.0, description="Per-request total timeout, seconds.")
    crawl_max_bytes: int = Field(5_000_000, description="Max body size, after decompression.")

    # --- push ----------------------------------------------------------------------------
    smtp_host: str | None = Field(None, description="SMTP server; empty = email disabled.")
    smtp_port: int = Field(587, description="SMTP port.")
    smtp_username: str | None = Field(None, description="SMTP login.")
    smtp_password: str | None = Field(None, description="SMTP password.")
    smtp_security: Literal["none", "starttls", "tls"] = Field(
        "starttls", description="none | starttls | tls"
    )
    smtp_from: str = Field("Timely Push <noreply@localhost>", description="From address.")
    sms_provider: Literal["console", "twilio", "apprise", "none"] = Field(
        "console", description="console | twilio | apprise | none"
    )
    twilio_account_sid: str | None = Field(None, description="Twilio account SID.")
    twilio_auth_token: str | None = Field(None, description="Twilio auth token.")
    twilio_from: str | None = Field(None, description="Twilio sender number.")
    apprise_sms_url: str | None = Field(
        None, description="Apprise URL template for SMS, with {phone} for the number."
    )
    twilio_api_base: str = Field(
        "https://api.twilio.com", description="Twilio REST API base URL (a compatible gateway)."
    )
    push_group_seconds: float = Field(
        120.0,
        description="Instant email / SMS / Apprise pushes found within this many seconds go "
        "out as one message; 0 = each at once.",
    )

    @field_validator("var_dir")
    @classmethod
    def _absolute(cls, v: Path) -> Path:
        return v.resolve()

    @property
    def sqlalchemy_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.var_dir / 'timelypush.db'}"

    @property
    def is_sqlite(self) -> bool:
        return self.sqlalchemy_url.startswith("sqlite")

    @property
    def embedded(self) -> bool:
        """True when no Redis is configured: crawls run in-process on APScheduler."""
        return not self.redis_url

    def cookies_secure(self) -> bool:
        """Whether session cookies are marked Secure (``secure_cookies``, else an https
        ``base_url``)."""
        if self.secure_cookies is not None:
            return self.secure_cookies
        return self.base_url.lower().startswith("https://")

    def effective_secret_key(self) -> str:
        if self.secret_key:
            return self.secret_key
        path = self.var_dir / "secret_key"
        if path.exists():
            return path.read_text().strip()
        if not self.var_dir.exists():
            self.var_dir.mkdir(parents=True, mode=0o700)
            self.var_dir.chmod(0o700)
        key = secrets.token_urlsafe(48)
        # created 0600: the key is never readable by others, not even for a moment
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(key)
        return key

    @property
    def allowlist(self) -> list[str]:
        return [item.strip() for item in self.url_allowlist.split(",") if item.strip()]


@lru_cache
def get_settings() -> Settings:
    return Settings()
