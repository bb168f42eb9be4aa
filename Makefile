# The two Quickstart commands: `make run` and `make test`. Both install what they need.
UV := python3 -m uv
export UV_PYTHON_DOWNLOADS := never

.PHONY: run test deps test-deps lint typecheck contracts pytest fmt check

deps:
	@python3 -m uv --version >/dev/null 2>&1 || python3 -m pip install --quiet uv
	$(UV) sync --locked --no-dev

# Install and run the service on its embedded default (SQLite + in-process scheduler).
run: deps
	$(UV) run --no-dev timelypush serve

test-deps:
	@python3 -m uv --version >/dev/null 2>&1 || python3 -m pip install --quiet uv
	$(UV) sync --locked
	@# the browser tests need Debian's chromium and a font with Chinese glyphs for the screenshots
	@{ command -v chromium && fc-list :lang=zh | grep -q .; } >/dev/null 2>&1 || \
		{ apt-get update -qq && apt-get install -y -qq chromium fonts-wqy-microhei >/dev/null; }

lint:
	$(UV) run ruff check .
	$(UV) run ruff format --check .

typecheck:
	$(UV) run mypy app crawler push

contracts:
	$(UV) run lint-imports

pytest:
	$(UV) run pytest -n 2 --dist loadfile

# Fix what the linter can and format the code.
fmt:
	$(UV) run ruff check --fix .
	$(UV) run ruff format .

# Every check of `make test` except the tests: lint, format, types, import contracts.
check: lint typecheck contracts

# Install test dependencies and run the whole suite: lint, types, import contracts, tests.
test: test-deps check pytest
