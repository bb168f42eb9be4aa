"""`timelypush push` commands: send a test message, process the outbox."""

from __future__ import annotations

import logging

import typer

push_cli = typer.Typer(
    help="Notifications: test a channel, process the outbox.", no_args_is_help=True
)


@push_cli.command("test")
def send_test(
    channel: str = typer.Option(..., "--channel", help="email | webhook | sms"),
    to: str = typer.Option(..., "--to", help="Email address, webhook URL or phone number."),
    secret: str | None = typer.Option(
        None, "--secret", help="Webhook signing secret (whsec_…); a random one by default."
    ),
    lang: str = typer.Option("zh", "--lang", help="zh | en"),
) -> None:
    """Send a test message through the configured channel; exit 1 when it fails."""
    from app.core.config import get_settings
    from app.services.delivery_actions import send_test_message

    if channel not in ("email", "webhook", "sms"):
        typer.echo(f"error: unknown channel {channel!r}; choose email, webhook or sms", err=True)
        raise typer.Exit(2)
    settings = get_settings()
    result = send_test_message(settings, channel, to, secret=secret, lang=lang)
    if not result.ok:
        typer.echo(f"error: {channel} delivery to {to} failed: {result.error}", err=True)
        raise typer.Exit(1)
    detail = f" (id {result.provider_id})" if result.provider_id else ""
    typer.echo(f"ok: test message sent by {channel} to {to}{detail}")
    if channel == "sms" and settings.sms_provider == "console":
        typer.echo("note: TIMELYPUSH_SMS_PROVIDER=console only logs the SMS; nothing was sent")


@push_cli.command("run")
def run(
    limit: int = typer.Option(100, help="Deliveries per batch."),
    digests: bool = typer.Option(True, help="Queue the daily digests that are due first."),
) -> None:
    """Process the outbox once: queue due digests, then send every due delivery."""
    from app.services.delivery import enqueue_due_digests, process_outbox

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    queued = enqueue_due_digests() if digests else 0
    total = 0
    for _ in range(10_000):
        claimed = process_outbox(limit=limit)
        total += claimed
        if claimed < limit:
            break
    typer.echo(f"digests queued: {queued}; deliveries processed: {total}")


def register(cli: typer.Typer) -> None:
    """Add this module's commands to the root command."""
    cli.add_typer(push_cli, name="push")
