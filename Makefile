# The two commands of the README:   make reproduce   and   make test
# Both create .venv from the pinned requirements when it is missing (or older than the pins).

PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
CORES ?= all
CONFIG ?= config/config.yaml
SNAKEMAKE := $(BIN)/snakemake
# A comma list of CONFIG's studies (make reproduce STUDY=length): plan, train, judge and report those
# alone; empty: every study. Their report is <outdir>/reports/ablation_report.<a+b>.html and names the
# studies it leaves out. With stats.family: config their verdicts read every study's runs (the plan says so).
STUDY ?=
STUDIES_FLAG = $(if $(STUDY),--studies $(STUDY))

.PHONY: venv plan reproduce retrain-stale resume test test-all lint snakemake-report verify bench clean-results gc migrate compare reference

## .venv from the full lock (requirements.txt: the runtime dependencies and the test tools), then this
## package, editable and without resolving its dependencies again (the lock pinned them).
venv: $(VENV)/.installed

## TORCH=cpu: first torch's CPU build of the pinned version, from PyTorch's CPU index added to the
## indexes pip is configured with (a mirror stays in use); the lock's torch pin is then met by it.
TORCH ?=
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu

$(VENV)/.installed: requirements.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(if $(filter cpu,$(TORCH)),$(BIN)/python -m pip install --quiet --disable-pip-version-check --extra-index-url $(TORCH_CPU_INDEX) "$$(grep -E '^torch==' requirements.txt)")
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $@

## Before any training: per claim, can the configured seeds reach SUPPORTED and CONTRADICTED, how
## long the training takes at CORES on this machine (a few seconds of it timed here), and the runs in
## the store that other training code trained. PLAN_FLAGS=--wide: every column; PLAN_FLAGS=--csv: as CSV.
plan: venv
	$(BIN)/python -m ablation.plan $(CONFIG) --cores $(CORES) $(STUDIES_FLAG) $(PLAN_FLAGS)

## The whole default ablation (every study, or STUDY's) and its report; the plan first.
reproduce: venv
	$(BIN)/python -m ablation.config $(CONFIG)
	$(BIN)/python -m ablation.plan $(CONFIG) --cores $(CORES) $(STUDIES_FLAG)
	target="$$($(BIN)/python -m ablation.selection $(CONFIG) $(STUDIES_FLAG) --target)" && \
		$(SNAKEMAKE) "$$target" --cores $(CORES) --configfile $(CONFIG)
	@echo
	@echo "Report: $$($(BIN)/python -m ablation.selection $(CONFIG) $(STUDIES_FLAG) --absolute)"

## Retrain, in place, the runs of CONFIG (of STUDY's studies, when given) that other training code
## trained: their recorded training fingerprint differs from the code here (make plan names them).
## Snakemake forces their training jobs and makes again everything that reads them, the report
## included. Runs trained before runs recorded their training code are left as they are.
retrain-stale: venv
	@stale="$$($(BIN)/python -m ablation.store stale $(CONFIG) $(STUDIES_FLAG))" && \
	target="$$($(BIN)/python -m ablation.selection $(CONFIG) $(STUDIES_FLAG) --target)" || exit 1; \
	if [ -z "$$stale" ]; then echo "No run was trained by other training code."; exit 0; fi; \
	echo "Retraining $$(echo "$$stale" | wc -l) run(s) trained by other training code."; \
	$(SNAKEMAKE) "$$target" $$stale --cores $(CORES) --configfile $(CONFIG) --forcerun $$stale

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
## TEST_WORKERS pytest-xdist workers run the test files side by side (default: one per CPU); a file
## stays on one worker, so its module's fixtures (a Snakemake study, a SLURM cluster) start once.
TEST_WORKERS ?= logical
PYTEST = $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile
test: venv
	$(PYTEST)

## The unit tests alone (tests/unit): no Snakemake run, no simulation; under a minute.
.PHONY: test-fast
test-fast: venv
	$(BIN)/python -m pytest tests/unit -q

## Every test, the slow ones included (kill-and-resume, the real SLURM cluster, the harness in quick mode).
test-all: venv
	RUN_SLOW=1 $(PYTEST)

## Snakemake's linter on the workflow (with CONFIG) and snakefmt's format check of workflow/.
lint: venv
	$(SNAKEMAKE) --lint --configfile $(CONFIG)
	$(BIN)/snakefmt --check workflow

## Re-train a random sample of finished runs (config verify.sample, verify.random_seed) and compare
## them bit for bit: results/verify.csv, shown in the report.
verify: venv
	$(SNAKEMAKE) --cores $(CORES) --configfile $(CONFIG) --forcerun verify
	@$(BIN)/python -m ablation.compare verified --config $(CONFIG)

## Compare this config's results with another results folder (or reference/), run by run and claim
## by claim: bit-identical runs, largest test-accuracy difference, verdicts, machines and software.
compare: venv
	@test -n "$(REF)" || { echo "usage: make compare REF=<results folder or reference/> [CONFIG=...]"; exit 2; }
	$(BIN)/python -m ablation.compare diff --config $(CONFIG) $(REF)

## Register CONFIG's studies (STUDY's, when given) anew: each claim's test as the config states it now,
## in <outdir>/results/<study>/registration.json. The explicit step that accepts a claim changed after
## its runs: until then its row names the change and the registered claim's verdict (docs/registration.md).
.PHONY: register
register: venv
	$(BIN)/python -m ablation.registration register $(CONFIG) $(STUDIES_FLAG)

## Write reference/ (committed) from a results folder: per study the trimmed summary, the claims and
## the machine and software of the runs. RESULTS defaults to CONFIG's results folder; STUDY (a comma
## list) writes those studies alone and leaves the others' reference as it is.
reference: venv
	$(BIN)/python -m ablation.compare reference $(RESULTS) --config $(CONFIG) --out reference $(STUDIES_FLAG)

## The benchmark harness: writes benchmarks/results.md and results.json.
bench: venv
	$(BIN)/python benchmarks/run.py

## Mutation testing (mutmut) of the modules that decide results, against their unit tests: writes
## benchmarks/mutation.md. Not part of `make test`; run it when those modules change: it re-measures
## the rows out of date (a file they depend on changed since). Some modules: make mutation MODULES="io data";
## every module: make mutation MODULES=--all.
.PHONY: mutation
mutation: venv
	nice $(BIN)/python benchmarks/mutation.py $(MODULES)

## The run store (results/runs/<hash>/): list the runs no config in CONFIGS references;
## `make gc DELETE=1` deletes them. Nothing else ever deletes a run.
CONFIGS ?= $(wildcard config/*.yaml)
gc: venv
	$(BIN)/python -m ablation.store gc $(CONFIGS) $(if $(DELETE),--delete)

## Move finished runs of the old layout (results/<study>/runs/<factor~value>/.../seed~N/) into the
## run store, without training; a run already there must have the same params_sha256.
migrate: venv
	$(BIN)/python -m ablation.store migrate

## The tables, figures and reports of the configs in CONFIGS (their outdirs); the run store
## (results/runs/) stays: `make gc`.
clean-results: venv
	find results -mindepth 1 -maxdepth 1 -type d ! -name runs -exec rm -rf {} +
	rm -rf reports/*.html reports/*.zip .snakemake/ $$($(BIN)/python -c 'import sys; from ablation.config import load; print(*sorted({load(p).outdir for p in sys.argv[1:]} - {"."}))' $(CONFIGS))

## Files of code under scripts/ and benchmarks/ longer than LONG_FILE_LINES (lines, path): none is the
## rule, since a longer file holds more than one idea (tests/tooling/test_package_layout.py runs this).
## Machine-written JSON and Markdown (benchmark and mutation results, probes' answers) are data and prose, not code, and are not listed.
LONG_FILE_LINES := 600
.PHONY: long-files
long-files:
	@git ls-files --cached --others --exclude-standard -- scripts benchmarks | grep -v '\.json$$' | grep -v '\.md$$' \
		| xargs -r wc -l | awk -v max=$(LONG_FILE_LINES) '$$2 != "total" && $$1 > max'

## The README's generated blocks (what reference/ finds, the plan's runs per study, the measured
## times) and its pictures, docs/img/findings.png and docs/img/lengths.png; `make readme CHECK=1` only compares them.
.PHONY: readme
readme: venv
	$(BIN)/python -m ablation.readme $(if $(CHECK),--check)

## Every target with a `##` comment, and its comment's first sentence.
.PHONY: help
help:
	@awk '/^## /{doc = doc (doc == "" ? "" : " ") substr($$0, 4); next} /^$$/{doc = ""; next} \
		/^[a-z][a-z0-9_-]*:([^=]|$$)/ && doc != "" {name = $$0; sub(/:.*/, "", name); text = doc; \
		sub(/\. .*/, ".", text); printf "  make %-17s %s\n", name, text; doc = ""}' $(firstword $(MAKEFILE_LIST))
