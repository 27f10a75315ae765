# The two commands of the README:   make reproduce   and   make test
# Both create .venv from the pinned requirements when it is missing (or older than the pins).

PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
CORES ?= all
CONFIG ?= config/config.yaml
SNAKEMAKE := $(BIN)/snakemake

.PHONY: venv reproduce test test-all lint report snakemake-report verify bench clean-results

venv: $(VENV)/.installed

$(VENV)/.installed: requirements.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $@

## The whole default ablation (every study) and its report.
reproduce: venv
	$(SNAKEMAKE) --cores $(CORES) --configfile $(CONFIG)
	@echo
	@echo "Report: $(CURDIR)/reports/ablation_report.html"

## Snakemake's own report (a zip of every figure and table, with captions).
snakemake-report: venv
	$(SNAKEMAKE) --cores $(CORES) --configfile $(CONFIG) --report reports/snakemake-report.zip

## The default test suite (well under 10 minutes on 2 cores).
test: venv
	$(BIN)/python -m pytest -m "not slow and not slurm"

## Every test, the slow, browser and SLURM ones included (what CI runs).
test-all: venv
	$(BIN)/python -m pytest

lint: venv
	$(SNAKEMAKE) --lint --configfile $(CONFIG)
	$(BIN)/snakefmt --check workflow

clean-results:
	rm -rf results/*/ reports/*.html reports/*.zip .snakemake/
