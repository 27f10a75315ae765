"""The run store: every run in ``results/runs/<hash>/``, named by the hash of its settings.

A run is a pure function of its settings (``ablation.settings.run_hash``: every setting, defaults
applied, as canonical JSON), so two studies or two configs that need the same settings share one
folder and one training job, and a config's key order never renames a run. A study refers to its
runs through an index, ``<outdir>/results/<study>/runs.csv``: the readable run id
(``<factor>~<level>/seed~0``), the hash, the factor values and the seed.

    python -m ablation.store index --study-json '{...}' --out RESULTS/STUDY/runs.csv
    python -m ablation.store gc CONFIG.yaml [...] [--delete]    # runs no given config references
    python -m ablation.store migrate [--results results]        # results/<study>/runs/... -> the store
    python -m ablation.store stale CONFIG [--studies a,b]         # metrics.csv of runs trained by other code

A run folder is complete when its ``metrics.csv`` exists: training writes it last, atomically.
Nothing here deletes a run unless asked to (``gc --delete``).

A run's name is its settings, not the code that trained it: each run records the fingerprint of its
training code (``provenance.training_fingerprint``), and ``check_code`` compares it with the code
here, so that the plan and the report name the runs another training code trained, and
``make retrain-stale`` retrains exactly those.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from . import io, provenance, selection
from . import settings
from .config import ConfigError, Study, load
from .data import evaluated_lengths, lengths_key
from .design import adaptive_block, every_run, index_row, scope_runs, scope_settings

STORE = Path("results/runs")
RUN_FILES = ("metrics.csv", "curve.csv", "init_grads.csv", "settings.json", "provenance.json", "weights.pt")
LOG, BENCHMARK = "train.log", "benchmark.tsv"  # the train job's log and benchmark, beside its files
HASH_PATTERN = rf"[0-9a-f]{{{settings.HASH_CHARS}}}"
INDEX_KEYS = ("run_id", "hash")  # then the factors, then seed


def is_complete(run_dir: Path) -> bool:
    return (Path(run_dir) / "metrics.csv").is_file()


def evaluation_file(store: Path, run_hash: str, run_settings, eval_lengths: list[int]) -> Path:
    """A run's evaluations at a study's eval_lengths and its own trained lengths (rule evaluate's output)."""
    return Path(store) / run_hash / "evaluations" / f"{lengths_key(evaluated_lengths(run_settings, eval_lengths))}.csv"


# ---------------------------------------------------------------- the index of a study


def study_index(study: Study) -> tuple[list[str], list[dict]]:
    """(factor names, rows) of a study's runs.csv, in the study's run order: what read_index returns."""
    return study.factor_names, [index_row(run, study.factor_names) for run in study.runs()]


def write_index(study: Study, path: Path, rounds=()) -> None:
    """The study's runs.csv; an adaptive study's ``rounds`` (its round files, ``ablation.adaptive``)
    add the runs they planned."""
    factor_names, rows = study_index(study)
    for round_file in rounds:
        rows += json.loads(Path(round_file).read_text(encoding="utf-8"))["new_runs"]
    io.write_csv(path, rows, [*INDEX_KEYS, *factor_names, "seed"])


def write_scope_index(study: Study, path: Path, rounds=()) -> None:
    """The runs.csv of the study's scope (``design.scope_runs``: its claims' other universes): the
    settings they vary are columns beside the factors; an adaptive study's ``rounds`` add theirs."""
    extra = scope_settings(study)
    rows = [index_row(run, study.factor_names, extra) for run in scope_runs(study, study.seeds)]
    for round_file in rounds:
        rows += json.loads(Path(round_file).read_text(encoding="utf-8")).get("new_scope_runs", [])
    io.write_csv(path, rows, [*INDEX_KEYS, *study.factor_names, *extra, "seed"])


def read_index(path: Path) -> tuple[list[str], list[dict]]:
    """(factor names, rows as dicts) of a study's runs.csv."""
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        header = list(reader.fieldnames or [])
        rows = list(reader)
    if header[: len(INDEX_KEYS)] != list(INDEX_KEYS) or header[-1:] != ["seed"]:
        raise ValueError(f"{path}: not a run index (columns {','.join(header)})")
    return header[len(INDEX_KEYS) : -1], rows


def study_json(study: Study) -> str:
    """What defines a study's runs (fixed settings, factors, seeds), as the index rule passes it:
    sorted keys, so that the config's key order changes nothing. ``study_from_json`` reads it."""
    d = study.to_dict()
    return json.dumps({k: d[k] for k in ("name", "fixed", "factors", "seeds")}, sort_keys=True)


def study_from_json(text: str) -> Study:
    """The study the workflow passes as JSON with sorted keys, its factors back in the schema's order."""
    d = json.loads(text)
    factors = {name: d["factors"][name] for name in settings.setting_specs() if name in d["factors"]}
    return Study(d["name"], "", d["fixed"], factors, d["seeds"], [])


# ---------------------------------------------------------------- gc


def referenced(config_paths: list) -> set[str]:
    """The hashes of every run of every study of the given configs (an adaptive study's: every run
    its rounds may train)."""
    hashes = set()
    for path in config_paths:
        cfg = load(path)
        for name, study in cfg.studies.items():
            block = adaptive_block(cfg.raw["studies"][name])
            hashes |= {run.hash for run in every_run(study, block)}
    return hashes


def orphans(store: Path, keep: set[str]) -> list[Path]:
    """Run folders of the store that are not in ``keep``, sorted."""
    if not store.is_dir():
        return []
    return sorted(d for d in store.iterdir() if d.is_dir() and re.fullmatch(HASH_PATTERN, d.name) and d.name not in keep)


def _describe_run(run_dir: Path) -> str:
    try:
        values = json.loads((run_dir / "settings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "incomplete (no settings.json)"
    shown = {k: v for k, v in values.items() if v != settings.defaults().get(k, object())}
    state = "complete" if is_complete(run_dir) else "incomplete"
    return f"{state}; non-default settings {json.dumps(shown, sort_keys=True)}"


def gc(config_paths: list, store: Path, delete: bool) -> list[Path]:
    found = orphans(store, referenced(config_paths))
    for run_dir in found:
        print(f"{'deleting' if delete else 'orphan'} {run_dir}: {_describe_run(run_dir)}")
        if delete:
            shutil.rmtree(run_dir)
    what = "deleted" if delete else "unreferenced (delete them with --delete)"
    print(f"{len(found)} run(s) of {store} {what}; configs: {', '.join(map(str, config_paths))}")
    return found


# ---------------------------------------------------------------- the training code of the runs


@dataclass
class CodeCheck:
    """Runs of the store by the code that trained them, against the code here (``check_code``)."""

    current: list = field(default_factory=list)  # their fingerprint is the code's here
    other_code: dict = field(default_factory=dict)  # hash -> what differs: "model.py", "torch 2.4.0, here 2.5.1"
    before_fingerprints: list = field(default_factory=list)  # provenance records no fingerprint
    not_trained: list = field(default_factory=list)  # no metrics.csv


def _recorded(run_dir: Path) -> dict:
    try:
        return json.loads((run_dir / "provenance.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _differences(prov: dict, code: dict, threads: int) -> list[str]:
    """What differs between a run's recorded training and the code here: the training path's files,
    torch's version, the thread count (a plugin's code is in the run's settings, so in its hash)."""
    trained = prov.get("training_code") or {}
    out = [name for name in provenance.TRAINING_PATH if trained.get(name) != code.get(name)]
    if prov.get("torch") != provenance.torch_version():
        out.append(f"torch {prov.get('torch')}, here {provenance.torch_version()}")
    if prov.get("threads") is not None and int(prov["threads"]) != int(threads):
        out.append(f"{prov['threads']} threads, here {threads}")
    return out or ["plugin code"]


def check_code(hashes, threads: int, store: Path = STORE) -> CodeCheck:
    """Each run of ``hashes`` (once each, in order) against the code here: its recorded training
    fingerprint against ``training_fingerprint`` of the code here at ``threads`` (the config's
    train_threads: what a job would train it with) and the run's own plugin code. A run whose
    provenance records no fingerprint was trained before runs recorded one: its code is unknown, so it
    is not called stale; its params_sha256 stays what names its result."""
    code, out = provenance.training_code(), CodeCheck()
    for run_hash in dict.fromkeys(hashes):
        run_dir = Path(store) / run_hash
        if not is_complete(run_dir):
            out.not_trained.append(run_hash)
            continue
        prov = _recorded(run_dir)
        if "training_fingerprint" not in prov:
            out.before_fingerprints.append(run_hash)
        elif prov["training_fingerprint"] == provenance.training_fingerprint(
            threads, (prov.get("settings") or {}).get("plugin_code"), code
        ):
            out.current.append(run_hash)
        else:
            out.other_code[run_hash] = _differences(prov, code, threads)
    return out


def config_hashes(cfg, chosen, store: Path = STORE) -> list[str]:
    """The runs of the ``chosen`` studies that a code check covers: their first round's (their own
    and their scopes', trained or not) and every run their adaptive rounds may add that the store
    holds."""
    first, later = [], []
    for name in chosen:
        study = cfg.studies[name]
        first += [r.hash for r in study.runs() + scope_runs(study, study.seeds)]
        later += [r.hash for r in every_run(study, adaptive_block(cfg.raw["studies"][name]))]
    held = set(first)
    return first + [h for h in dict.fromkeys(later) if h not in held and is_complete(Path(store) / h)]


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def code_lines(check: CodeCheck, retrain: str) -> list[str]:
    """The check in a line per class of runs with any (``retrain``: the command that retrains the
    stale ones)."""
    out = []
    if check.other_code:
        files = [n for n in provenance.TRAINING_PATH if any(n in d for d in check.other_code.values())]
        other = sorted({d for ds in check.other_code.values() for d in ds if d not in provenance.TRAINING_PATH})
        what = "; ".join(([f"{' and '.join(files)} changed"] if files else []) + other)
        out.append(f"{_plural(len(check.other_code), 'run was', 'runs were')} trained by other training code "
                   f"({what}); `{retrain}` retrains {'it' if len(check.other_code) == 1 else 'them'}.")  # fmt: skip
    if check.before_fingerprints:
        one = len(check.before_fingerprints) == 1
        out.append(f"{_plural(len(check.before_fingerprints), 'run was', 'runs were')} trained before runs "
                   f"recorded their training code: which code trained {'it' if one else 'them'} is unknown, and "
                   f"{'its' if one else 'their'} params_sha256 still names {'its' if one else 'their'} "
                   f"result.")  # fmt: skip
    if check.current:
        out.append(f"{_plural(len(check.current), 'run was', 'runs were')} trained by the training code here.")
    if check.not_trained:
        out.append(f"{_plural(len(check.not_trained), 'run is', 'runs are')} not trained yet.")
    return out


def retrain_command(config_path, chosen_text: str = "") -> str:
    """``make retrain-stale`` with the CONFIG and STUDY it was asked for."""
    words = ["make retrain-stale"]
    if config_path and Path(config_path).as_posix() != "config/config.yaml":
        words.append(f"CONFIG={config_path}")
    if chosen_text:
        words.append(f"STUDY={chosen_text}")
    return " ".join(words)


# ---------------------------------------------------------------- migration of results/<study>/runs/


def _params_sha256(metrics: Path) -> str:
    with open(metrics, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    return rows[0]["params_sha256"] if len(rows) == 1 else ""


def _restamp(run_dir: Path, run_hash: str) -> None:
    """Give a run moved into the store the study and run id that training in the store writes."""
    path = run_dir / "metrics.csv"
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        header, rows = list(reader.fieldnames or []), list(reader)
    for row in rows:
        row.update(study="", run_id=run_hash)
    prov_path = run_dir / "provenance.json"
    if prov_path.is_file():
        prov = json.loads(prov_path.read_text(encoding="utf-8"))
        prov.update(study="", run_id=run_hash)
        io.write_json(prov_path, prov)
    io.write_csv(path, rows, header)  # last: metrics.csv says "complete"


def migrate(results: Path, store: Path) -> int:
    """Move every finished run of ``results/<study>/runs/`` into the store, without training; a run
    whose settings are already in the store must have the same params_sha256 (then the old copy is
    dropped), else both are kept and reported. Returns the number of conflicts."""
    moved = same = conflicts = incomplete = 0
    for runs_root in sorted(p for p in results.glob("*/runs") if p.resolve() != store.resolve()):
        study_dir = runs_root.parent
        for metrics in sorted(runs_root.rglob("metrics.csv")):
            old = metrics.parent
            run_id = old.relative_to(runs_root).as_posix()
            values = settings.from_dict(json.loads((old / "settings.json").read_text(encoding="utf-8")))
            target = store / settings.run_hash(values)
            sha = _params_sha256(metrics)
            if is_complete(target):
                if _params_sha256(target / "metrics.csv") == sha:
                    shutil.rmtree(old)
                    same += 1
                else:
                    print(f"conflict: {old} and {target} have the same settings, different params_sha256")
                    conflicts += 1
                continue
            _restamp(old, target.name)
            if target.exists():
                shutil.rmtree(target)  # an incomplete run: training would redo it
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(old, target)  # one rename: the run folder is there whole or not at all
            for src, name in (
                (study_dir / "logs" / "train" / f"{run_id}.log", LOG),
                (study_dir / "benchmarks" / "train" / f"{run_id}.tsv", BENCHMARK),
            ):
                if src.is_file():
                    os.replace(src, target / name)
            if _params_sha256(target / "metrics.csv") != sha:
                raise RuntimeError(f"{target}: params_sha256 changed while moving {old}")
            moved += 1
        incomplete += sum(1 for d in runs_root.rglob("seed~*") if d.is_dir() and not is_complete(d))
        for d in sorted((p for p in runs_root.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
            if not any(d.iterdir()):
                d.rmdir()
        if not any(runs_root.iterdir()):
            runs_root.rmdir()
    print(
        f"moved {moved} run(s) into {store}; {same} already there with the same params_sha256 (old copy removed);"
        f" {conflicts} conflict(s); {incomplete} incomplete run folder(s) left in place"
    )
    return conflicts


# ---------------------------------------------------------------- command line


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ablation.store", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("index", help="write a study's runs.csv")
    p.add_argument("--study-json", required=True, help="the study (name, fixed, factors, seeds) as JSON")
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--rounds", nargs="*", type=Path, default=[], help="an adaptive study's round files, in order")
    p = sub.add_parser("scope-index", help="write the runs.csv of a study's scope (its claims' other universes)")
    p.add_argument("--study-json", required=True, help="the study with its claims (Study.to_dict) as JSON")
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--rounds", nargs="*", type=Path, default=[], help="an adaptive study's round files, in order")
    p = sub.add_parser("gc", help="list (or --delete) the store's runs that no given config references")
    p.add_argument("configs", nargs="+", type=Path)
    p.add_argument("--store", type=Path, default=STORE)
    p.add_argument("--delete", action="store_true", help="delete them (without it, only list them)")
    p = sub.add_parser("stale", help="the metrics.csv of each run of a config trained by other training code")
    p.add_argument("config", type=Path)
    p.add_argument("--studies", default="", help="a comma list of study names (default: every study)")
    p.add_argument("--store", type=Path, default=STORE)
    p = sub.add_parser("migrate", help="move results/<study>/runs/<factor~value>/.../seed~N/ into the store")
    p.add_argument("--results", type=Path, default=Path("results"))
    p.add_argument("--store", type=Path, default=STORE)
    args = ap.parse_args(argv)
    if args.command == "index":
        write_index(study_from_json(args.study_json), args.out, args.rounds)
        return 0
    if args.command == "scope-index":
        write_scope_index(Study.from_dict(json.loads(args.study_json)), args.out, args.rounds)
        return 0
    if args.command == "stale":
        try:
            cfg = load(args.config)
            chosen = selection.names(cfg, args.studies)
        except ConfigError as exc:
            print(f"config error: {exc}", file=sys.stderr)
            return 1
        hashes = config_hashes(cfg, selection.judged_with(cfg, chosen), args.store)
        for run_hash in check_code(hashes, cfg.train_threads, args.store).other_code:
            print((args.store / run_hash / "metrics.csv").as_posix())
        return 0
    if args.command == "gc":
        try:
            gc(args.configs, args.store, args.delete)
        except ConfigError as exc:
            print(f"config error: {exc}", file=sys.stderr)
            return 1
        return 0
    return int(migrate(args.results, args.store) > 0)


if __name__ == "__main__":
    sys.exit(main())
