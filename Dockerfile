# One image for web, worker and beat.
# Stage 1 resolves the locked dependencies into a virtualenv; stage 2 runs as a non-root user.
FROM python:3.11-slim-bookworm AS build
ENV UV_COMPILE_BYTECODE=1 UV_LINK_MODE=copy UV_PYTHON_DOWNLOADS=never
RUN pip install --no-cache-dir uv
WORKDIR /srv/timelypush
COPY pyproject.toml uv.lock README.md ./
RUN uv sync --locked --no-dev --no-install-project
COPY app ./app
COPY crawler ./crawler
COPY push ./push
COPY templates ./templates
COPY alembic ./alembic
COPY alembic.ini ./
RUN uv sync --locked --no-dev --no-editable

FROM python:3.11-slim-bookworm AS runtime
RUN groupadd --system timelypush && useradd --system --gid timelypush --home /srv/timelypush timelypush
WORKDIR /srv/timelypush
# only the virtualenv: the wheel carries templates, static files, migrations and alembic.ini
COPY --from=build --chown=timelypush:timelypush /srv/timelypush/.venv /srv/timelypush/.venv
ENV PATH="/srv/timelypush/.venv/bin:$PATH" \
    PYTHONUNBUFFERED=1 \
    TIMELYPUSH_VAR_DIR=/srv/timelypush/var \
    TIMELYPUSH_HOST=0.0.0.0
RUN mkdir -p var && chown timelypush:timelypush /srv/timelypush var
USER timelypush
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz').status!=200)"
CMD ["timelypush", "serve"]
