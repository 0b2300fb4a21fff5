# make demo: set everything up and play the built-in example battles.
# make test: set everything up and run the whole suite (pytest, ruff, mypy, rule coverage).
# make serve: the HTTP API and the table in a browser, with the example battles loaded.
# make docs: the library's API reference (mkdocs), built into site/.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
RULES := ../shared/tools/rule-coverage
RULE_PREFIXES ?= DC,SW,AL,BU

.PHONY: demo test serve docs browser system lint typecheck coverage-rules bench clean

$(BIN)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

# The demo needs rangefire alone, not the test tools (a .venv of 230 MB instead of 880).
$(BIN)/.installed-demo: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $@

demo: $(BIN)/.installed-demo
	$(BIN)/rangefire demo

# The tests drive real parts from Debian's packages, installed where missing (as root, or through sudo):
# Chromium for the browser tests, Node.js and npm for the generated TypeScript client and the page's scripts,
# PostgreSQL for the server's store (the tests start a throwaway cluster of their own, never the system's).
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
SYSTEM_NEEDS := chromium:chromium node:nodejs npm:npm pg_ctl:postgresql
system:
	@missing=""; for need in $(SYSTEM_NEEDS); do \
		cmd=$${need%%:*}; pkg=$${need#*:}; \
		if [ "$$cmd" = pg_ctl ]; then ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 && continue; \
		else command -v $$cmd >/dev/null && continue; fi; \
		missing="$$missing $$pkg"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian's$$missing"; \
		$(SUDO) apt-get install -y $$missing || ($(SUDO) apt-get update && $(SUDO) apt-get install -y $$missing); \
	fi
browser: system

serve: $(BIN)/.installed
	$(BIN)/rangefire serve --examples

docs: $(BIN)/.installed
	$(BIN)/mkdocs build --strict

# pytest on every core (pytest-xdist): each test file's tests run in one worker, as they share their module's server
# and browser; the 20 slowest tests are listed at the end.
test: $(BIN)/.installed system
	$(BIN)/python -m pytest -n auto --dist loadfile --durations=20
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy src
	@if [ -f $(RULES) ]; then $(BIN)/python $(RULES) --only $(RULE_PREFIXES); \
	elif [ -n "$$CI" ]; then echo "rule coverage: $(RULES) is missing" >&2; exit 1; \
	else echo "rule coverage: $(RULES) not found beside this checkout; skipped"; fi

bench: $(BIN)/.installed
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
