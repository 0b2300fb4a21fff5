# make demo: set everything up and play the built-in example battles.
# make test: set everything up and run the whole suite (pytest, ruff, mypy, rule coverage).
# make serve: the HTTP API and the table in a browser, with the example battles loaded.
# make docs: the library's API reference (mkdocs), built into site/.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
RULES := ../shared/tools/rule-coverage
RULE_PREFIXES ?= DC,SW,AL,BU

.PHONY: demo test serve docs browser lint typecheck coverage-rules bench clean

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

# The browser tests drive Debian's Chromium; install it where it is missing (as root, or through sudo).
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
browser:
	@command -v chromium >/dev/null || $(SUDO) apt-get install -y chromium \
		|| ($(SUDO) apt-get update && $(SUDO) apt-get install -y chromium)

serve: $(BIN)/.installed
	$(BIN)/rangefire serve --examples

docs: $(BIN)/.installed
	$(BIN)/mkdocs build --strict

test: $(BIN)/.installed browser
	$(BIN)/python -m pytest
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy src
	@if [ -f $(RULES) ]; then $(BIN)/python $(RULES) --only $(RULE_PREFIXES); \
	elif [ -n "$$CI" ]; then echo "rule coverage: $(RULES) is missing" >&2; exit 1; \
	else echo "rule coverage: $(RULES) not found beside this checkout; skipped"; fi

bench: $(BIN)/.installed
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
