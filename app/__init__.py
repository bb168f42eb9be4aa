"""Timely Push, the service: settings, database, models, services, jobs, API, web, CLI."""
