# make demo: set everything up and play the built-in example battles.
# make test: set everything up and run the whole suite (pytest, ruff, mypy, rule coverage).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
RULES := ../shared/tools/rule-coverage
RULE_PREFIXES ?= DC,SW,AL,BU

.PHONY: demo test lint typecheck coverage-rules bench clean

$(BIN)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

demo: $(BIN)/.installed
	$(BIN)/rangefire demo

test: $(BIN)/.installed
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
