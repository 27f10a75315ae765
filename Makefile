# The two commands of the README:   make reproduce   and   make test
# Both create .venv from the pinned requirements when it is missing (or older than the pins).

PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
CORES ?= all
CONFIG ?= config/config.yaml
SNAKEMAKE := $(BIN)/snakemake

.PHONY: venv plan reproduce resume test lint snakemake-report verify bench clean-results

venv: $(VENV)/.installed

$(VENV)/.installed: requirements.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $@

## Before any training: per claim, can the configured seeds reach SUPPORTED and CONTRADICTED?
plan: venv
	$(BIN)/python -m ablation.plan $(CONFIG)

## The whole default ablation (every study) and its report; the plan first.
reproduce: venv
	$(BIN)/python -m ablation.config $(CONFIG)
	$(BIN)/python -m ablation.plan $(CONFIG)
	$(SNAKEMAKE) --cores $(CORES) --configfile $(CONFIG)
	@echo
	@echo "Report: $(CURDIR)/reports/ablation_report.html"

## After a kill or a crash: release Snakemake's stale lock, then carry on (finished runs are kept,
## half-finished ones redone: the profile sets rerun-incomplete).
resume: venv
	$(SNAKEMAKE) --unlock --configfile $(CONFIG)
	$(MAKE) reproduce

## Snakemake's own report (a zip of every figure and table, with captions).
snakemake-report: venv
	$(SNAKEMAKE) --cores $(CORES) --configfile $(CONFIG) --report reports/snakemake-report.zip

## The test suite. Slow tests (kill-and-resume, the real SLURM cluster, the benchmark harness) run
## only when CI is set (CI sets it) or RUN_SLOW=1; otherwise they are reported as skipped.
test: venv
	$(BIN)/python -m pytest

lint: venv
	$(SNAKEMAKE) --lint --configfile $(CONFIG)
	$(BIN)/snakefmt --check workflow

## Re-train a random sample of finished runs (config verify.sample, verify.random_seed) and compare
## them bit for bit: results/verify.csv, shown in the report.
verify: venv
	$(SNAKEMAKE) --cores $(CORES) --configfile $(CONFIG) --forcerun verify

## The benchmark harness (issue 5): writes benchmarks/results.md and results.json (~20 min on 2 cores).
bench: venv
	$(BIN)/python benchmarks/run.py

## Mutation testing (mutmut) of the modules that decide results, against their unit tests: writes
## benchmarks/mutation.md. Not part of `make test`; run it when those modules change. Some modules
## only: make mutation MODULES="io data".
.PHONY: mutation
mutation: venv
	nice $(BIN)/python benchmarks/mutation.py $(MODULES)

clean-results:
	rm -rf results/*/ reports/*.html reports/*.zip .snakemake/
