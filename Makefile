# tunifolk: every target sets itself up (virtualenv + pinned installs) on a fresh machine.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.txt requirements-dev.txt scorer/requirements.txt pyproject.toml | sha1sum | cut -c1-12)
STACK ?= dev
JOB ?=
ARGS ?=

.PHONY: install test lint fmt bench fuzz redteam demo emulator scorer validate launch status watch clean

$(STAMP): requirements.txt requirements-dev.txt scorer/requirements.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -e .
	rm -f $(VENV)/.installed-* && touch $@

install: $(STAMP)

## make test: lint, then every test (unit, contract, integration against real local servers)
test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) -m pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check .

fmt: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

## make bench: benchmarks that print figures (not tests)
bench: $(STAMP)
	@set -e; for f in bench/bench_*.py; do echo "== $$f"; $(PY) $$f; done

## make fuzz: 10,000+ malformed and adversarial requests against a scorer it starts itself
fuzz: $(STAMP)
	$(PY) bench/fuzz_scorer.py --count 10000

## make redteam: the structure reward's red-team table (attacks and harmless layouts, per category)
redteam: $(STAMP)
	$(PY) tests/redteam.py

## make demo: the offline end-to-end flow (emulator + local scorer + CLI)
demo: $(STAMP)
	$(PY) -m tunifolk demo

emulator: $(STAMP)
	$(PY) -m emulator --port 8090

scorer: $(STAMP)
	PORT=8080 $(PY) -m scorer

## make validate|launch ARGS="--scorer-uri URL --train-uri gs://… --validation-uri gs://…"; status|watch JOB=ID
validate: $(STAMP)
	$(PY) -m tunifolk validate --stack $(STACK) $(ARGS)

launch: $(STAMP)
	$(PY) -m tunifolk launch --stack $(STACK) $(ARGS)

status: $(STAMP)
	$(PY) -m tunifolk status --stack $(STACK) --job $(JOB) $(ARGS)

watch: $(STAMP)
	$(PY) -m tunifolk watch --stack $(STACK) --job $(JOB) $(ARGS)

clean:
	rm -rf build .pytest_cache .ruff_cache .hypothesis
