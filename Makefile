# The two Quickstart commands: `make run` and `make test`. Both install what they need.
UV := python3 -m uv
export UV_PYTHON_DOWNLOADS := never

.PHONY: run test deps test-deps lint typecheck contracts pytest fmt check i18n i18n-compile

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
	$(UV) run mypy app crawler push lab

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

# Translations: extract every message id from the code and templates (babel.cfg), merge them
# into the Chinese and English catalogues under app/locale, then compile the .mo files the
# service reads. Fill in new empty msgstr lines in both .po files before compiling;
# tests/app/test_i18n_catalogue.py fails while one is missing or a .mo is stale.
I18N_KEYWORDS := -k N_ -k translate:2 -k flash:2 -k message:3 -k Invalid -k Conflict -k NotFound \
	-k Throttled -k Unauthorized -k ServiceError
i18n:
	@mkdir -p build
	$(UV) run pybabel extract -F babel.cfg $(I18N_KEYWORDS) --no-location --sort-output \
		-w 100 -o build/messages.pot .
	$(UV) run pybabel update -i build/messages.pot -d app/locale -w 100 --no-fuzzy-matching \
		--ignore-obsolete
	$(MAKE) i18n-compile

i18n-compile:
	$(UV) run pybabel compile -d app/locale --statistics
