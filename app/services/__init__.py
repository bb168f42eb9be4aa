"""The use cases, one module per idea; they raise the errors of ``app.services.errors``."""
