#!/usr/bin/env python3
"""The record of one migration: each claim's verdict under the claims code of 4414afc and under this one.

    .venv/bin/python benchmarks/probes/verdicts.py --config config/config.yaml --results results \\
        --old-src OLD_CHECKOUT/scripts --old-python OLD_CHECKOUT/.venv/bin/python \\
        --out benchmarks/probes/verdicts.md

It answered one question: which verdicts change when the claims move from one Holm family over the
whole config (4414afc's code) to one family per study with the seed-share rules? Its output,
verdicts.md, is that answer on the default config's full run. What it knows of the old code belongs to
that migration alone: the claim keys 4414afc does not know (NEW_KEYS), the call of its
``evaluate_family`` (OLD_PROGRAM) and the table's words for the old family. Another migration needs its
own copy of those, not this script run again.

Reads every study of the config whose ``summary.csv`` and ``init_grads.csv`` exist under ``--results``
(the others are listed as not run). The old verdicts come from ``ablation.claims.evaluate_family`` of
the package under ``--old-src``, run by ``--old-python`` in a subprocess (its own dependencies; claim
keys it does not know are left out); the new ones from ``ablation.claims.evaluate_family`` here.
Adaptive studies are judged as the pipeline judges them, with their design. Writes a Markdown table:
study, claim, old verdict and its n and interval, new verdict, its n (seeds) and estimand, and what
the seeds show under the new rules.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "scripts"))
sys.path.insert(0, str(HERE.parent))  # benchmarks/: measured.py

from ablation import analyze, claims, config, design  # noqa: E402 (the package lives under scripts/)
from ablation.seed_units import StudyRuns  # noqa: E402
from measured import line, stamp  # noqa: E402

OLD_PROGRAM = """
import json, sys
import pandas as pd
from ablation import claims as C
spec = json.load(sys.stdin)
family = [(s["name"], s["claims"], pd.read_csv(s["summary"], dtype={"run_id": str}),
           pd.read_csv(s["init_grads"], dtype={"run_id": str}), s["factors"]) for s in spec["studies"]]
table = C.evaluate_family(family, spec["stats"], adaptive=spec["adaptive"])
out = [{"study": r["study"], "id": r["id"], "verdict": r["verdict"], "n": int(r["n"]), "p_holm": r["p_holm"],
        "ci_lo": r["ci_lo"], "ci_hi": r["ci_hi"]} for r in table.to_dict("records")]
json.dump(out, sys.stdout)
"""
NEW_KEYS = ("estimand", "share", "exact", "min_slope")
"""Claim keys the earlier claims code does not know: left out of the claims it is given."""


def old_verdicts(studies: list[dict], stats: dict, adaptive: dict, src: Path, python: Path) -> pd.DataFrame:
    """The earlier code's verdicts: every covered claim of the config one Holm family, as it had them."""
    old_studies = [s | {"claims": [{k: v for k, v in c.items() if k not in NEW_KEYS} for c in s["claims"]]}
                   for s in studies]  # fmt: skip
    old_stats = {k: v for k, v in stats.items() if k != "family"}
    spec = json.dumps({"studies": old_studies, "stats": old_stats, "adaptive": adaptive})
    res = subprocess.run([str(python), "-c", OLD_PROGRAM], input=spec, capture_output=True, text=True,
                         env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"}, check=False)  # fmt: skip
    if res.returncode:
        sys.exit(f"the old claims code failed: {res.stderr.strip().splitlines()[-1] if res.stderr else res.returncode}")
    return pd.DataFrame(json.loads(res.stdout))


def why(old: dict | None, new: dict) -> str:
    """What the seeds show under the new rules (the claims table's evidence), beside the old p."""
    parts = [str(new["evidence"])]
    if old is not None and not pd.isna(old.get("p_holm")):
        parts.append(f"old: Holm p {old['p_holm']:.3g} over every claim of the config, n {old['n']}")
    return "; ".join(parts)


def _fmt_interval(lo, hi) -> str:
    return "–" if pd.isna(lo) or pd.isna(hi) else f"[{lo:.3f}, {hi:.3f}]"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", required=True, type=Path)
    ap.add_argument("--results", required=True, type=Path)
    ap.add_argument("--old-src", type=Path, help="the scripts/ folder of the earlier version")
    ap.add_argument("--old-python", type=Path, help="the Python that runs the earlier version")
    ap.add_argument("--out", type=Path, help="Markdown table (default: print)")
    args = ap.parse_args(argv)
    cfg = config.load(args.config)
    covered, missing = [], []
    for name, study in cfg.studies.items():
        summary, grads = args.results / name / "summary.csv", args.results / name / "init_grads.csv"
        if summary.is_file() and grads.is_file() and study.claims:
            covered.append(dict(name=name, summary=str(summary), init_grads=str(grads), claims=study.to_dict()["claims"],
                                factors=study.factor_names))  # fmt: skip
        elif study.claims:
            missing.append(name)
    designs = {}
    for s in covered:
        block = design.adaptive_block(cfg.raw["studies"][s["name"]])
        if block:
            designs[s["name"]] = {"seeds": list(cfg.studies[s["name"]].seeds), **block}
    family = [StudyRuns(s["name"], analyze.read_table(Path(s["summary"]), s["factors"]), tuple(s["factors"]),
                        analyze.read_table(Path(s["init_grads"]), s["factors"]), designs.get(s["name"]),
                        tuple(cfg.studies[s["name"]].claims)) for s in covered]  # fmt: skip
    new = claims.evaluate_family(family, cfg.stats)
    old = None
    if args.old_src and args.old_python:
        old = old_verdicts(covered, cfg.stats, designs, args.old_src, args.old_python).set_index(["study", "id"])
    lines = [
        "# Verdicts under the claims code of 4414afc and under this one",
        "",
        line(stamp()),
        "",
        f"Written by `python benchmarks/probes/verdicts.py --config {args.config}` on the results of a full run. "
        f"Claims of {args.config}: studies covered: {', '.join(s['name'] for s in covered) or 'none'}"
        + (f"; not run: {', '.join(missing)}" if missing else "")
        + f". The new verdicts: Holm over each {cfg.stats.get('family', 'study')}'s non-exact claims; the old ones: "
        "every claim of the config one family.",
        "",
        "| study | claim | old verdict | old n, interval | new verdict | new n (seeds), estimand | robustness | why |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in new.to_dict("records"):
        o = old.loc[(r["study"], r["id"])].to_dict() if old is not None and (r["study"], r["id"]) in old.index else None
        old_cells = (o["verdict"], f"{o['n']}, {_fmt_interval(o['ci_lo'], o['ci_hi'])}") if o else ("–", "–")
        rob = "–" if pd.isna(r["robustness"]) else f"{r['robustness']:.2f}"
        lines.append(f"| {r['study']} | {r['id']} | {old_cells[0]} | {old_cells[1]} | {r['verdict']} | "
                     f"{r['n']}, {r['estimand']} | {rob} | {why(o, r)} |")  # fmt: skip
    text = "\n".join(lines) + "\n"
    if args.out:
        args.out.write_text(text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
