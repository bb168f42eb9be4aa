"""serve, migrate, worker, beat, user: running the service."""

from __future__ import annotations

import contextlib
import sys

import typer

from app.core.config import get_settings
from app.core.logging import configure_logging

user_cli = typer.Typer(help="Manage user accounts.", no_args_is_help=True)


def register(cli: typer.Typer) -> None:
    cli.command()(serve)
    cli.command()(migrate)
    cli.command()(worker)
    cli.command()(beat)
    cli.add_typer(user_cli, name="user")


def serve(
    host: str = typer.Option(None, help="Bind host (default: TIMELYPUSH_HOST, 127.0.0.1)."),
    port: int = typer.Option(None, help="Bind port (default: TIMELYPUSH_PORT, 8000)."),
    workers: int = typer.Option(
        1,
        min=1,
        max=64,
        help="Web processes on the one port (Celery setup only: without Redis the one "
        "process also schedules the crawls).",
    ),
) -> None:
    """Run the web app (without Redis, also the in-process scheduler).

    The database is migrated first.
    """
    import uvicorn

    from app.core.migrate import upgrade

    settings = get_settings()
    if workers > 1 and settings.embedded:
        typer.echo(
            "error: --workers above 1 needs the Celery setup (TIMELYPUSH_REDIS_URL): without "
            "Redis the web process also schedules the crawls, and there must be one of it.",
            err=True,
        )
        raise typer.Exit(2)
    configure_logging(settings.log_level)
    upgrade()
    host = host or settings.host
    port = port or settings.port
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host  # noqa: S104
    mode = "embedded (SQLite + in-process scheduler)" if settings.embedded else "Celery"
    typer.echo(f"Timely Push is running in {mode} mode: open http://{shown}:{port}/", err=True)
    # Ctrl-C is how one stops it: after uvicorn's graceful shutdown that is a normal exit
    # (status 0), so `make run` and scripts do not report an error
    with contextlib.suppress(KeyboardInterrupt):
        uvicorn.run(
            "app.main:create_app",
            factory=True,
            host=host,
            port=port,
            log_level="info",
            workers=workers,
            proxy_headers=True,
            forwarded_allow_ips=settings.forwarded_allow_ips,
        )
    typer.echo("Timely Push stopped.", err=True)


def migrate(
    revision: str = typer.Argument("head", help="Alembic revision to upgrade to."),
) -> None:
    """Upgrade the database schema (Alembic) to REVISION."""
    from app.core.migrate import upgrade

    configure_logging(get_settings().log_level)
    upgrade(revision=revision)
    typer.echo(f"database at {revision}: {get_settings().sqlalchemy_url.split('@')[-1]}", err=True)


def worker(
    concurrency: int = typer.Option(2, help="Worker processes."),
    queues: str = typer.Option("celery", help="Comma-separated queues to consume."),
) -> None:
    """Run a Celery worker (needs TIMELYPUSH_REDIS_URL).

    Run as many as you like, anywhere.
    """
    settings = get_settings()
    configure_logging(settings.log_level)
    if not settings.redis_url:
        typer.echo(
            "worker: set TIMELYPUSH_REDIS_URL (the embedded mode needs no worker).", err=True
        )
        sys.exit(2)
    from app.worker import celery_app

    celery_app.worker_main(
        [
            "worker",
            f"--loglevel={settings.log_level}",
            f"--concurrency={concurrency}",
            f"--queues={queues}",
        ]
    )


def beat() -> None:
    """Run Celery beat (needs TIMELYPUSH_REDIS_URL).

    Beat enqueues due crawls and digests. Run exactly one beat per deployment; a second one
    would only enqueue duplicates that the site leases and locks then skip.
    """
    settings = get_settings()
    configure_logging(settings.log_level)
    if not settings.redis_url:
        typer.echo("beat: set TIMELYPUSH_REDIS_URL (the embedded mode needs no beat).", err=True)
        sys.exit(2)
    from app.core.db import private_dir
    from app.worker import celery_app

    private_dir(settings.var_dir)
    schedule = settings.var_dir / "celerybeat-schedule"
    celery_app.start(["beat", f"--loglevel={settings.log_level}", f"--schedule={schedule}"])


@user_cli.command("create")
def user_create(
    email: str = typer.Argument(..., help="Login email."),
    password: str = typer.Option(
        ..., prompt=True, hide_input=True, confirmation_prompt=True, help="Password (≥ 8 chars)."
    ),
) -> None:
    """Create a user account (already verified)."""
    from app.core.db import session_scope
    from app.core.migrate import upgrade
    from app.services import auth
    from app.services.errors import ServiceError

    upgrade()
    try:
        with session_scope() as session:
            user = auth.register_user(session, email=email, password=password, verified=True)
            typer.echo(f"created user {user.id} <{user.email}>")
    except ServiceError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        sys.exit(1)


@user_cli.command("list")
def user_list() -> None:
    """List the accounts: id, email, verified, active."""
    from app.core.db import session_scope
    from app.services import account_data

    with session_scope() as session:
        for user in account_data.list_users(session):
            flags = [
                "verified" if user.email_verified_at else "unverified",
                "active" if user.is_active else "DISABLED",
            ]
            typer.echo(f"{user.id}\t{user.email}\t{' '.join(flags)}")


def _set_active(email: str, active: bool) -> None:
    from app.core.db import session_scope
    from app.services import account_data
    from app.services.errors import NotFound

    try:
        with session_scope() as session:
            user = account_data.set_active(session, email, active=active)
            state = "enabled" if active else "disabled (tokens and sessions ended)"
            typer.echo(f"user {user.id} <{user.email}> {state}")
    except NotFound as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(1)


@user_cli.command("disable")
def user_disable(email: str = typer.Argument(..., help="Login email.")) -> None:
    """Disable an account: no login, no API token, no push."""
    _set_active(email, False)


@user_cli.command("enable")
def user_enable(email: str = typer.Argument(..., help="Login email.")) -> None:
    """Enable a disabled account again."""
    _set_active(email, True)
