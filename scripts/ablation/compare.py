"""Compare two results folders, run by run and claim by claim, as ``dvc metrics diff`` does for DVC
users; and write the trimmed copy of a results folder that is committed as ``reference/``.

    python -m ablation.compare diff [RESULTS] OTHER [--config C]        # make compare REF=OTHER
    python -m ablation.compare reference [RESULTS] --out reference [--config C]   # make reference
    python -m ablation.compare verified [VERIFY_CSV] [--config C]       # make verify's result line

RESULTS defaults to the results folder of the config given with --config (``<outdir>/results``).

Either side may be a results folder (``<study>/summary.csv``, ``<study>/tables/claims.csv``) or a
reference folder (``<study>/summary.csv``, ``<study>/claims.csv``, ``<study>/environment.json``).
Per study it gives: the runs whose final parameters are bit-identical (same ``params_sha256``) and
those that differ, the largest difference in test accuracy, the claims whose verdicts differ, and
the CPU capability and package versions each side's runs were trained with (from their
``provenance.json``; a reference carries them in ``environment.json``), and the claims whose
registration (``<study>/registration.json``, ``ablation.registration``) differs.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import pandas as pd

from . import io, registration
from .config import load

SUMMARY_KEEP = ("run_id", "hash", "test_acc", "test_total", "final_train_acc", "status", "params_sha256", "train_seconds")
"""The columns of summary.csv a reference keeps (``hash``: where the results have a run store;
``test_total`` and ``final_train_acc``: what a claim on accuracy or on convergence reads again;
``train_seconds``: what each run took on the reference's machine, for a reader: ``make plan``
times this machine instead, ablation.timing)."""
EVALUATIONS = "evaluations.csv"
"""A task study's per-run, per-length evaluations: what its length claims and figures read."""
SCOPE = "scope"
"""The sub-folder of a study's runs in the universes of its claims' ``robust_over``: its summary.csv
(and evaluations.csv), and the scope table tables/scope.csv of results/ kept as scope.csv."""
CLAIM_KEEP = ("id", "verdict", "estimate", "ci_lo", "ci_hi", "n", "p_holm", "robustness")
ENVIRONMENT_KEYS = ("cpu_capability", "cpu_model", "python", "torch", "numpy", "code_sha256", "training_fingerprint")
"""What a run's provenance.json says about the machine and software that trained it (the training
fingerprint: what its training executed, ``provenance.training_fingerprint``)."""


class CompareError(Exception):
    """A results folder that cannot be compared (one line)."""


def _read_summary(folder: Path, study: str) -> pd.DataFrame:
    path = folder / study / "summary.csv"
    if not path.is_file():
        raise CompareError(f"{path}: missing (is {folder} a results or reference folder with study {study!r}?)")
    df = pd.read_csv(path, dtype={"run_id": str, "hash": str, "params_sha256": str, "status": str})
    missing = [c for c in ("run_id", "test_acc", "status", "params_sha256") if c not in df.columns]
    if missing:
        raise CompareError(f"{path}: no column {', '.join(missing)}")
    index = folder / study / "runs.csv"  # the run store's index: run id -> hash of the run's settings
    if "hash" not in df.columns and index.is_file():
        hashes = pd.read_csv(index, dtype=str, usecols=["run_id", "hash"])
        df = df.merge(hashes, on="run_id", how="left")
    return df


def _read_claims(folder: Path, study: str) -> pd.DataFrame:
    for path in (folder / study / "tables" / "claims.csv", folder / study / "claims.csv"):
        if path.is_file():
            return pd.read_csv(path, dtype={"id": str, "verdict": str})
    return pd.DataFrame(columns=list(CLAIM_KEEP))


def stores(folder: Path) -> list[Path]:
    """Where the run store of a results folder ``<outdir>/results`` may be: ``runs/`` beside its study
    folders (outdir "."), else ``results/runs`` of a folder above it (the working folder of a config
    with its own outdir). Never the store of the folder this process runs in."""
    folder = Path(folder).resolve()
    return [folder / "runs", *(above / "results" / "runs" for above in folder.parents)]


def _provenance_files(folder: Path, study: str, summary: pd.DataFrame) -> list[Path]:
    """provenance.json of the study's runs, in the run store of ``folder`` (``stores``)."""
    if "hash" not in summary.columns:
        return []
    for store in stores(folder):
        found = [store / h / "provenance.json" for h in summary["hash"].dropna()]
        found = [p for p in found if p.is_file()]
        if found:
            return found
    return []


def environment(folder: Path, study: str, summary: pd.DataFrame | None = None) -> dict:
    """key -> the distinct values (joined with ' | ') over the study's runs; {} when nothing is known."""
    saved = folder / study / "environment.json"
    if saved.is_file():
        return json.loads(saved.read_text(encoding="utf-8"))
    summary = _read_summary(folder, study) if summary is None else summary
    values: dict[str, set] = {k: set() for k in ENVIRONMENT_KEYS}
    for path in _provenance_files(folder, study, summary):
        try:
            prov = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for key in ENVIRONMENT_KEYS:
            if prov.get(key) is not None:
                values[key].add(str(prov[key]))
    return {k: " | ".join(sorted(v)) for k, v in values.items() if v}


def registration_differing(here: Path, ref: Path, study: str) -> dict:
    """The study's registrations (``<study>/registration.json``) side by side: whether each side has
    one and, per claim whose registered test differs, what changed from the reference's to this one."""
    paths = {side: Path(folder) / study / registration.FILE for side, folder in (("here", here), ("ref", ref))}
    regs = {side: registration.load(p) if p.is_file() else None for side, p in paths.items()}
    out = {"registered_here": regs["here"] is not None, "registered_ref": regs["ref"] is not None, "differing": []}
    if None in regs.values():
        return out
    mine, theirs = ({e["id"]: e for e in regs[s]["claims"]} for s in ("here", "ref"))
    for cid in [*theirs, *(i for i in mine if i not in theirs)]:
        if cid not in mine or cid not in theirs:
            out["differing"].append({"id": cid, "words": ["registered here only" if cid in mine else
                                                          "registered in the reference only"]})  # fmt: skip
        elif mine[cid]["sha256"] != theirs[cid]["sha256"]:
            words = registration.changes(theirs[cid], mine[cid]) or ["the same test, hashed with fields the reference's lacks"]
            out["differing"].append({"id": cid, "words": words})
    return out


def _runs(folder: Path, study: str) -> pd.DataFrame:
    """A study's runs: its summary.csv, with its scope universes' runs (``scope/summary.csv``) where
    it has them: a reproduction checks those too."""
    runs = _read_summary(folder, study)
    if (folder / study / SCOPE / "summary.csv").is_file():
        runs = pd.concat([runs, _read_summary(folder / study, SCOPE)], ignore_index=True)
    return runs


def studies_of(folder: Path) -> list[str]:
    """The studies of a results or reference folder: the sub-folders with a summary.csv."""
    return sorted(p.parent.name for p in Path(folder).glob("*/summary.csv"))


def compare_study(here: Path, ref: Path, study: str) -> dict:
    """The reproduction check of one study: ``here`` against ``ref``."""
    a, b = _runs(here, study), _runs(ref, study)
    key = "hash" if "hash" in a.columns and "hash" in b.columns else "run_id"
    both = a.merge(b, on=key, suffixes=("", "_ref"), how="inner")
    same = both["params_sha256"] == both["params_sha256_ref"]
    diff = (pd.to_numeric(both["test_acc"], errors="coerce") - pd.to_numeric(both["test_acc_ref"], errors="coerce")).abs()
    largest = None
    if len(both) and diff.notna().any():
        i = diff.idxmax()
        largest = {"run_id": both.loc[i, "run_id"], "difference": float(diff[i])}
    ca, cb = _read_claims(here, study), _read_claims(ref, study)
    claims = ca.merge(cb, on="id", suffixes=("", "_ref"), how="inner")
    changed = claims[claims["verdict"] != claims["verdict_ref"]]
    return {
        "study": study,
        "compared": int(len(both)),
        "identical": int(same.sum()),
        "differing": both.loc[~same, "run_id"].tolist(),
        "only_here": int(len(a) - len(both)),
        "only_ref": int(len(b) - len(both)),
        "largest_test_acc_diff": largest,
        "claims_compared": int(len(claims)),
        "verdicts_differing": [
            {"id": r["id"], "here": r["verdict"], "reference": r["verdict_ref"]} for _, r in changed.iterrows()
        ],
        "environment_here": environment(here, study, a),
        "environment_ref": environment(ref, study, b),
        "registration": registration_differing(here, ref, study),
    }


def compare(here: Path, ref: Path, studies: list[str] | None = None) -> list[dict]:
    """compare_study for every study of ``studies`` (default: those both folders have)."""
    here, ref = Path(here), Path(ref)
    if not here.is_dir():
        raise CompareError(f"{here}: no such results folder")
    if not ref.is_dir():
        raise CompareError(f"{ref}: no such results or reference folder")
    names = studies if studies is not None else [s for s in studies_of(here) if s in set(studies_of(ref))]
    return [compare_study(here, ref, s) for s in names if (ref / s / "summary.csv").is_file()]


MACHINE_KEYS = ("cpu_model", "cpu_capability")
"""What a run's floating-point arithmetic depends on besides the software: bit-identity needs both equal."""


def _side(results: list[dict], side: str, key: str) -> str:
    values = sorted({v for r in results for v in r[f"environment_{side}"].get(key, "unknown").split(" | ")})
    return " | ".join(values)


def overview(results: list[dict]) -> dict:
    """The reproduction check of every study in one: whether the verdicts are equal, then how many
    runs are bit-identical and why they can differ. A study with no run in common with the other
    side (other settings) compares no verdict. ``sentences``: the answer in that order, in words."""
    common = [r for r in results if r["compared"]]
    claims = sum(r["claims_compared"] for r in common)
    differ = [v for r in common for v in r["verdicts_differing"]]
    compared, identical = sum(r["compared"] for r in common), sum(r["identical"] for r in common)
    here = {k: _side(common, "here", k) for k in MACHINE_KEYS}
    ref = {k: _side(common, "ref", k) for k in MACHINE_KEYS}
    out = {"claims_compared": claims, "verdicts_differing": differ, "compared": compared, "identical": identical,
           "machine_here": here, "machine_ref": ref, "same_machine": here == ref and "unknown" not in here.values(),
           "no_run_in_common": [r["study"] for r in results if not r["compared"]]}  # fmt: skip
    if not common:
        out["sentences"] = ["No run in common with the reference: its runs have other settings, so no verdict "
                            "and no run is compared."]  # fmt: skip
        return out
    if differ:
        verdicts = (f"Verdicts: {len(differ)} of {claims} differ from the reference's ("
                    + ", ".join(f"{v['id']}: {v['here']} here, {v['reference']} there" for v in differ) + ").")  # fmt: skip
    else:
        verdicts = f"Verdicts: all {claims} equal to the reference's."
    runs = f"Runs: {identical} of {compared} bit-identical"
    cpu = lambda m: f"{m['cpu_model']}, {m['cpu_capability']}"  # noqa: E731
    if identical == compared:
        runs += f" (CPU {cpu(here)} on both sides)."
    elif not out["same_machine"]:
        runs += (f": bit-identity needs the same CPU, and this run's ({cpu(here)}) differs from the reference's "
                 f"({cpu(ref)}), so their last bits can differ.")  # fmt: skip
    else:
        other = [k for k in ENVIRONMENT_KEYS if k not in MACHINE_KEYS
                 and _side(common, "here", k) != _side(common, "ref", k)]  # fmt: skip
        runs += (f" on the same CPU ({cpu(here)}): " + (f"{', '.join(other)} differ" if other else
                 "nothing recorded differs, so look at the runs that differ") + ".")  # fmt: skip
    out["sentences"] = [verdicts, runs]
    return out


def _pct(x: float) -> str:
    return f"{100 * x:.2f} percentage points"


def lines(result: dict) -> list[str]:
    """A study's check in plain words, one fact a line (what ``diff`` prints)."""
    r = result
    out = [f"{r['study']}: {r['identical']} of {r['compared']} runs bit-identical"
           + (f"; {len(r['differing'])} differ ({', '.join(r['differing'][:5])}"
              + (", ..." if len(r["differing"]) > 5 else "") + ")" if r["differing"] else "")]  # fmt: skip
    if r["only_here"] or r["only_ref"]:
        out.append(f"  runs only here: {r['only_here']}; only in the reference: {r['only_ref']}")
    big = r["largest_test_acc_diff"]
    out.append("  largest test-accuracy difference: "
               + (f"{_pct(big['difference'])} ({big['run_id']})" if big else "no run compared"))  # fmt: skip
    if r["verdicts_differing"]:
        out += [f"  verdict differs: {v['id']}: {v['here']} here, {v['reference']} in the reference"
                for v in r["verdicts_differing"]]  # fmt: skip
    else:
        out.append(f"  verdicts: all {r['claims_compared']} equal")
    for key in ENVIRONMENT_KEYS:
        a, b = r["environment_here"].get(key, "unknown"), r["environment_ref"].get(key, "unknown")
        if key != "code_sha256" or a != b:
            out.append(f"  {key}: {a}" + ("" if a == b else f" here, {b} in the reference"))
    return out + registration_lines(r.get("registration"))


def registration_lines(reg: dict | None) -> list[str]:
    """The registration check in words: a line per claim registered otherwise (the reference's test → this one's)."""
    if not reg or not (reg["registered_here"] or reg["registered_ref"]):
        return []
    if not (reg["registered_here"] and reg["registered_ref"]):
        return [f"  registration: {'none in the reference' if reg['registered_here'] else 'none here'}"]
    if not reg["differing"]:
        return ["  registration: the same claims registered"]
    return [f"  registration differs: {d['id']}: {'; '.join(d['words'])} (the reference's → this one's)"
            for d in reg["differing"]]  # fmt: skip


def write_reference(results: Path, out: Path, studies: list[str] | None = None) -> list[Path]:
    """The trimmed copy of ``results`` in ``out``/<study>/: summary.csv (SUMMARY_KEEP), claims.csv,
    environment.json (the machine and software of the runs, from the run store of ``results``), the
    study's registration.json where it has one, its evaluations.csv where it has evaluations, its
    scope universes' runs and table in scope/ and, beside a published result, published.csv; whatever
    else ``out``/<study>/ held goes."""
    results, out = Path(results), Path(out)
    names = studies or studies_of(results)
    if not names:
        raise CompareError(f"{results}: no study with a summary.csv (run `make reproduce` first)")
    written = []
    for study in names:
        summary = _read_summary(results, study)
        trimmed = summary[[c for c in SUMMARY_KEEP if c in summary.columns]]
        claims = _read_claims(results, study)
        env = environment(results, study, summary)
        dest = out / study
        # the study's copy is written whole: a scope, evaluations or published table its results no
        # longer have must not outlive them there
        shutil.rmtree(dest, ignore_errors=True)
        io.write_dataframe(dest / "summary.csv", trimmed)
        io.write_dataframe(dest / "claims.csv", claims)
        io.write_json(dest / "environment.json", env)
        written += [dest / "summary.csv", dest / "claims.csv", dest / "environment.json"]
        if (results / study / registration.FILE).is_file():  # the claims as registered before its runs
            io.write_text(dest / registration.FILE, (results / study / registration.FILE).read_text(encoding="utf-8"))
            written.append(dest / registration.FILE)
        for sub in ("", SCOPE):  # the runs' per-length evaluations; the scope universes' runs and table
            source, target = results / study / sub, dest / sub
            if sub and (source / "summary.csv").is_file():
                scope_runs = _read_summary(results / study, SCOPE)
                io.write_dataframe(target / "summary.csv", scope_runs[[c for c in SUMMARY_KEEP if c in scope_runs.columns]])
                written.append(target / "summary.csv")
                if (results / study / "tables" / "scope.csv").is_file():
                    io.write_dataframe(target / "scope.csv", pd.read_csv(results / study / "tables" / "scope.csv"))
                    written.append(target / "scope.csv")
            if (source / EVALUATIONS).is_file() and len(evaluations := pd.read_csv(source / EVALUATIONS)):
                io.write_dataframe(target / EVALUATIONS, evaluations)
                written.append(target / EVALUATIONS)
        table = results / study / "tables" / "published.csv"  # beside a published result: the README counts it
        if table.is_file() and len(pd.read_csv(table)):
            io.write_dataframe(dest / "published.csv", pd.read_csv(table, dtype={"level": str}))
            written.append(dest / "published.csv")
    return written


def verified_line(path: Path) -> tuple[str, bool]:
    """(the result line of verify.csv, whether every re-trained run was bit-identical)."""
    if not Path(path).is_file():
        raise CompareError(f"{path}: missing (run `make verify`)")
    df = pd.read_csv(path)
    if "identical" not in df.columns:
        raise CompareError(f"{path}: no column identical")
    same = df["identical"].astype(str).str.lower() == "true"
    line = f"{int(same.sum())} of {len(df)} runs reproduced bit-identically"
    differ = [f"{r.study}/{r.run_id}" for r in df[~same].itertuples()] if {"study", "run_id"} <= set(df) else []
    if differ:
        line += f"; differ: {', '.join(differ)}"
    return line, bool(same.all()) and len(df) > 0


def results_dir(config: Path | None) -> Path:
    """The results folder of ``config`` (``<outdir>/results``)."""
    if config is None:
        raise CompareError("give the results folder, or --config CONFIG to use that config's")
    return Path(load(config).outdir) / "results"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ablation.compare", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    d = sub.add_parser("diff", help="compare two results (or reference) folders")
    d.add_argument("paths", type=Path, nargs="+", metavar="[RESULTS] OTHER",
                   help="a results folder (default: the config's) and the results or reference folder to compare "
                   "it with")  # fmt: skip
    r = sub.add_parser("reference", help="write the trimmed reference copy of a results folder")
    r.add_argument("results", type=Path, nargs="?", help="default: the config's results folder")
    r.add_argument("--out", type=Path, default=Path("reference"))
    r.add_argument("--studies", help="a comma list: write these studies alone (default: every study of the results)")
    v = sub.add_parser("verified", help="print make verify's result line; exit 1 unless every run is identical")
    v.add_argument("verify_csv", type=Path, nargs="?", help="default: verify.csv of the config's results folder")
    for p in (d, r, v):
        p.add_argument("--config", type=Path, help="the config whose results folder is meant")
    args = ap.parse_args(argv)
    try:
        if args.command == "verified":
            line, ok = verified_line(args.verify_csv or results_dir(args.config) / "verify.csv")
            print(line)
            return 0 if ok else 1
        if args.command == "reference":
            studies = args.studies.split(",") if args.studies else None
            for path in write_reference(args.results or results_dir(args.config), args.out, studies):
                print(f"wrote {path}")
            return 0
        if len(args.paths) > 2:
            ap.error("diff takes at most two folders")
        here, other = args.paths if len(args.paths) == 2 else (results_dir(args.config), args.paths[0])
        args.here, args.ref = here, other
        results = compare(here, other)
    except CompareError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not results:
        print(f"error: {args.here} and {args.ref} have no study in common", file=sys.stderr)
        return 2
    print(f"{args.here} against {args.ref}")
    print("\n".join(overview(results)["sentences"]) + "\n")
    for result in results:
        print("\n".join(lines(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
