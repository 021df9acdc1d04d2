# tunifolk: every target sets itself up (virtualenv + pinned installs) on a fresh machine.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# The pins people edit (requirements*.txt) and the hashed locks `make lock` resolves from them, each
# beside its input (X.txt -> X.lock). Installs read only the locks; the venv installs the dev lock.
LOCK_INPUTS := requirements-dev.txt requirements.txt scorer/requirements.txt
LOCKS := $(LOCK_INPUTS:.txt=.lock)
STAMP := $(VENV)/.installed-$(shell cat $(LOCKS) pyproject.toml | sha1sum | cut -c1-12)
STACK ?= dev
JOB ?=
ARGS ?=

.PHONY: install test test-fast lint docs fmt bench fuzz redteam demo emulator scorer validate launch status watch clean \
	engine standin lock image image-tools

## The venv: exactly the packages of the dev lock, each checked against its hashes (--no-deps: the
## lock is the whole list; pip 23's resolver also trips on a locked package wanted with an extra,
## google-auth[requests]), then `pip check` that every dependency is met; then the project itself,
## editable, built by the lock's setuptools (--no-build-isolation: nothing is fetched for the build).
## pip installs the lock's uv (its entry and hashes cut from the lock), and uv the rest: it fetches
## in parallel and keeps a cache (~/.cache/uv), 2 s warm where pip took about 55 s.
$(STAMP): $(LOCKS) pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	rm -f scorer/*.so scorer/_compiled.json  # an older checkout's compiled scorer would shadow the sources
	awk '/^uv==/ {on = 1} on {print} on && !/\\$$/ {exit}' requirements-dev.lock > $(VENV)/uv.lock.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --require-hashes --no-deps -r $(VENV)/uv.lock.txt
	$(VENV)/bin/uv pip install --quiet --python $(PY) --require-hashes --no-deps -r requirements-dev.lock
	$(PY) -m pip check
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	rm -f $(VENV)/.installed-* && touch $@

## make lock: resolve the locks again from the pins, for the machine and the image (Linux x86_64,
## CPython 3.11), with every file's sha256. The dev lock first; the others are held to its versions,
## so each package has one version everywhere. Versions already locked are kept while they still
## fit; LOCK_ARGS=--upgrade moves every unpinned one to its newest.
LOCK_ARGS ?=
LOCK_COMPILE = $(VENV)/bin/uv pip compile --quiet --generate-hashes --python-version 3.11 \
	--python-platform x86_64-manylinux_2_28 --custom-compile-command 'make lock' $(LOCK_ARGS)
lock: $(STAMP)
	$(LOCK_COMPILE) requirements-dev.txt -o requirements-dev.lock
	set -e; for f in $(filter-out requirements-dev.txt,$(LOCK_INPUTS)); do \
		$(LOCK_COMPILE) -c requirements-dev.lock $$f -o $${f%.txt}.lock; done

install: $(STAMP)

## make test: lint (ruff, and lint-imports for the layers of docs/architecture.md), then every test (unit, contract, integration against real local servers, and the
## real Pulumi engine end to end: built first where Go is installed, else a `pulumi` on PATH is used),
## on three pytest-xdist workers per core. Every test keeps its servers and state in its own temporary
## directory; the longest tests are collected first (tests/conftest.py) and handed out one at a time,
## but a module whose module fixture runs a whole job (`xdist_group`) stays on one worker.
## The scorer image is built first where podman can run (the local stack's `pulumi up` builds it: built
## once here, not inside one engine test's time limit). Bytecode is written, as in test-fast: the tests
## start hundreds of Python processes (servers, the CLI, the engine's language host and stand-in), and
## in a fresh checkout and virtualenv (uv writes no .pyc) each compiled every module it imported again,
## about 0.7 s a process.
# Three workers per core: the engine and server tests spend much of their time waiting on subprocesses,
# so more workers than cores keep the CPUs busy (pytest on 2 cores: one per core 10 m 49 s, two 10 m 21 s;
# later, two per core with two-epoch engine scenarios 8 m 52 s, three with one-epoch ones 8 m 11 s).
PYTEST_WORKERS := $(shell echo $$(( 3 * $$(nproc 2>/dev/null || echo 1) )))
PYTEST_PARALLEL := -n $(PYTEST_WORKERS) --dist loadgroup --no-loadscope-reorder
test: $(STAMP) standin image-tools $(if $(shell command -v go),engine)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-logo --no-cache
	@missing="$$($(PY) -m tunifolk.image missing)"; if [ -z "$$missing" ]; then $(PY) -m tunifolk.image build; \
		else echo "scorer image not built ($$missing missing): the container tests skip, or fail under CI=true"; fi
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest $(PYTEST_PARALLEL)

## make image: the scorer's container image from this checkout, with podman, its bases made from
## Debian's packages (tunifolk/image.py: this machine's podman quirks live there); prints its digest
image: $(STAMP) image-tools
	$(PY) -m tunifolk.image build

## make image-tools: podman, runc and mmdebstrap from Debian's packages, installed through apt only
## when one is missing and only as root (as CI runs); otherwise the image tests skip and say why
image-tools: $(STAMP)
	@missing="$$($(PY) -m tunifolk.image missing)"; \
	if [ -n "$$missing" ] && [ "$$(id -u)" = 0 ]; then \
		echo "apt-get install $$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

## make test-fast: the edit loop, under a minute on two cores: the tests that start no server, engine
## or container (not marked slow), in parallel; tests that prove two implementations agree run a fixed,
## seeded sample of their cases here and every case in `make test` (tests/sweeps.py), and a property
## of the poem corpus checks half of it here, every poem in `make test` (tests/batches.py). Bytecode is
## written (__pycache__/, ignored by git) even where PYTHONDONTWRITEBYTECODE is set: else every worker
## and every `python -m` a test starts compiles the sources again, seconds a run.
test-fast: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -m "not slow" -n auto

## make docs: regenerate the tables of docs/config.md from the field table
docs: $(STAMP)
	$(PY) -m tunifolk.job.docs --write docs/config.md

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports --no-logo --no-cache

fmt: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

## make bench: benchmarks that print figures (not tests)
bench: $(STAMP) image-tools
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

## make emulator|scorer: on ports 8090 and 8080 (EMULATOR_PORT, SCORER_PORT move them; ARGS passes flags)
EMULATOR_PORT ?= 8090
SCORER_PORT ?= 8080
emulator: $(STAMP)
	$(PY) -m emulator --port $(EMULATOR_PORT) $(ARGS)

## make scorer: the reward service on loopback only (the image's own default, 0.0.0.0, is Cloud Run's)
scorer: $(STAMP)
	HOST=127.0.0.1 PORT=$(SCORER_PORT) $(PY) -m scorer

## make validate|launch ARGS="--scorer-uri URL --train-uri gs://… --validation-uri gs://…"; status|watch JOB=ID
validate: $(STAMP)
	$(PY) -m tunifolk validate --stack $(STACK) $(ARGS)

launch: $(STAMP)
	$(PY) -m tunifolk launch --stack $(STACK) $(ARGS)

status: $(STAMP)
	$(PY) -m tunifolk status --stack $(STACK) --job $(JOB) $(ARGS)

watch: $(STAMP)
	$(PY) -m tunifolk watch --stack $(STACK) --job $(JOB) $(ARGS)

## make engine: the Pulumi CLI and a Python language host, built from Pulumi's Go modules into
## build/engine/bin (cached: a second run only checks timestamps). Nothing prebuilt is downloaded.
ENGINE_BIN := build/engine/bin
# pkg/v3's version from engine/go.mod, whether it is required on its own line or in a block.
ENGINE_VERSION := $(shell awk '{for (i = 1; i < NF; i++) if ($$i == "github.com/pulumi/pulumi/pkg/v3") print $$(i + 1)}' engine/go.mod | head -1)
# A binary built with another -X version (or none) is rebuilt: the stamp's name carries the version.
ENGINE_STAMP := $(ENGINE_BIN)/.version-$(ENGINE_VERSION)
ENGINE_LDFLAGS = -w -s -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$(ENGINE_VERSION)
ENGINE_TOOLS := $(ENGINE_BIN)/pulumi $(ENGINE_BIN)/pulumi-language-python \
	$(ENGINE_BIN)/pulumi-language-python-exec $(ENGINE_BIN)/pulumi-resource-pulumi-python

engine: $(ENGINE_TOOLS) standin

## make standin: the gcp stand-in's plugin launcher (pulumi-resource-gcp) into build/engine/bin; no Go needed
STANDIN := $(ENGINE_BIN)/pulumi-resource-gcp
standin: $(STANDIN)

$(STANDIN): tunifolk/standin/pulumi-resource-gcp.in
	mkdir -p $(ENGINE_BIN)
	sed -e 's|@ROOT@|$(CURDIR)|g' -e 's|@PYTHON@|$(abspath $(PY))|g' $< > $@.tmp
	chmod 755 $@.tmp && mv $@.tmp $@

$(ENGINE_STAMP):
	mkdir -p $(ENGINE_BIN)
	rm -f $(ENGINE_BIN)/.version-* && touch $@

$(ENGINE_BIN)/pulumi: engine/go.mod engine/go.sum $(ENGINE_STAMP)
	mkdir -p $(ENGINE_BIN)
	cd engine && go build -trimpath -ldflags "$(ENGINE_LDFLAGS)" -o ../$@ github.com/pulumi/pulumi/pkg/v3/cmd/pulumi

$(ENGINE_BIN)/pulumi-language-python: engine/go.mod engine/go.sum $(wildcard engine/langhost/*.go) $(ENGINE_STAMP)
	mkdir -p $(ENGINE_BIN)
	cd engine && go build -trimpath -ldflags "$(ENGINE_LDFLAGS)" -o ../$@ ./langhost

# Two plain files of the sdk/v3 module (read-only in the module cache): copied, made executable.
$(ENGINE_BIN)/pulumi-language-python-exec $(ENGINE_BIN)/pulumi-resource-pulumi-python: engine/go.mod engine/go.sum
	mkdir -p $(ENGINE_BIN)
	sdk=$$(cd engine && go list -m -f '{{.Dir}}' github.com/pulumi/pulumi/sdk/v3) && \
	install -m 755 "$$sdk/python/$(if $(findstring exec,$(@F)),cmd,dist)/$(@F)" $@

clean:
	rm -rf build .pytest_cache .ruff_cache .hypothesis
