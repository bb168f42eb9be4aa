"""The visitor's language for the web pages, and the message ids the pages build at run time.

Texts live in the gettext catalogues (``app.core.i18n``). Language choice: the profile's
language, else the visitor's pick, else Accept-Language, else Chinese.
"""

from __future__ import annotations

from starlette.requests import Request

from app.core.i18n import DEFAULT, LANGUAGES, N_, has, negotiate, translate, translations

# Ids composed from stored values (``_("status:" ~ run.status)``): listed here so that the
# extraction keeps them in the catalogues.
DYNAMIC = (
    # delivery states, crawl run states
    *(N_("delivery:pending"), N_("delivery:sending"), N_("delivery:sent")),
    *(N_("delivery:failed"), N_("delivery:dead")),
    *(N_("status:running"), N_("status:ok"), N_("status:done"), N_("status:finished")),
    *(N_("status:failed"), N_("status:error"), N_("status:partial")),
    *(N_("status:not_modified"), N_("status:interrupted")),
    # concern choices: scope, push mode, strategy, sensitivity, scorer
    *(N_("scope:host"), N_("scope:domain"), N_("scope:any")),
    *(N_("push:instant"), N_("push:digest"), N_("push:both"), N_("push:off")),
    *(N_("bfs"), N_("fish"), N_("fish-kp"), N_("pagerank"), N_("adaptive")),
    *(N_("topic-pagerank"), N_("ipagerank"), N_("statistical"), N_("sections")),
    *(N_("sensitivity:precise"), N_("sensitivity:balanced"), N_("sensitivity:broad")),
    N_("sensitivity-help:precise"),
    N_("sensitivity-help:balanced"),
    N_("sensitivity-help:broad"),
    *(N_("scorer:model"), N_("scorer:kp"), N_("scorer:fish"), N_("scorer:vsm")),
    # why a page matched: the scorer and the page kind
    *(N_("method:kp"), N_("method:fish"), N_("method:vsm"), N_("method:model")),
    *(N_("kind:item"), N_("kind:hub")),
    # push channels by name
    *(N_("Email"), N_("Webhook"), N_("SMS"), N_("Apprise")),
)


def negotiate_request(request: Request) -> str:
    """The language of an anonymous visitor: their explicit pick, else Accept-Language."""
    chosen = request.session.get("lang")
    if isinstance(chosen, str) and chosen in LANGUAGES:
        return chosen
    return negotiate(request.headers.get("accept-language"))


__all__ = [
    "DEFAULT",
    "DYNAMIC",
    "LANGUAGES",
    "has",
    "negotiate",
    "negotiate_request",
    "translate",
    "translations",
]
