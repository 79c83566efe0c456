# One entry point for a fresh machine: `make serve` starts the judge, `make test` runs every test.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin

.PHONY: install serve test bench loadtest submit-bench contract-fuzz lint image clean

$(BIN)/judge: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

install: $(BIN)/judge

serve: install
	$(BIN)/judge serve

test: install
	$(BIN)/python -m pytest

# Benchmarks and load tests live in bench/, beside the product and not in it.
bench: install
	$(BIN)/python -m bench sandbox

loadtest: install
	$(BIN)/python -m bench loadtest

# Run against Submit at light load, per exercise, with where a Submit spends its time.
submit-bench: install
	$(BIN)/python -m bench submit

# schemathesis over the OpenAPI document against a real `judge serve` (schemathesis.toml).
contract-fuzz: install
	$(BIN)/python tools/contract_fuzz.py

lint: install
	$(BIN)/ruff check app sandbox bench tests tools
	$(BIN)/ruff format --check app sandbox bench tests tools
	$(BIN)/mypy app bench tools
	$(BIN)/mypy --strict sandbox
	$(BIN)/hadolint --failure-threshold warning Dockerfile

# The container image with podman or docker (docker/build.sh; IMAGE=judge:latest by default).
IMAGE ?= judge:latest
image:
	docker/build.sh $(IMAGE)

clean:
	rm -rf $(VENV)
