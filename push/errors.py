"""Exceptions raised by the push library.

::

    PushError
     ├── ConfigError     a channel was configured with unusable settings
     └── RenderError     a message template is missing or failed to render

Delivery failures are *not* exceptions: ``Channel.send`` returns a
:class:`push.message.DeliveryResult` saying whether the failure is permanent, so the
outbox can decide between a retry and giving up.
"""

from __future__ import annotations

__all__ = ["ConfigError", "PushError", "RenderError"]


class PushError(Exception):
    """Base class of every exception raised by ``push``."""


class ConfigError(PushError):
    """A channel cannot work with the configuration it was given."""


class RenderError(PushError):
    """A message template is missing or failed to render."""
