# make demo — create/refresh .venv, then run the demo on the embedded default store.
# make test — create/refresh .venv, then lint (ruff) and run the tests (pytest).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint bench lock clean

$(STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip==25.3
	$(BIN)/python -m pip install --quiet -c requirements.lock -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/hopgraph demo

lint: $(STAMP)
	$(BIN)/ruff check src tests bench

test: lint
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python bench/retrieval.py

# Re-pin every transitive dependency after changing pyproject.toml.
lock: $(STAMP)
	( echo '# Every package CI installs, pinned (regenerate with `make lock`).'; \
	  $(BIN)/python -m pip freeze --exclude-editable | grep -v '^-e' ) > requirements.lock

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
