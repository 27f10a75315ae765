"""The studies ``STUDY=`` names (``make reproduce STUDY=length``; a comma list for several): in the
config's order, the studies whose results their claims read, and the report of them.

A study's verdicts read its own results when each study is its own error family (``stats.family:
study``, the default), so asking for one study trains that study's runs only. When the config is
one family (``stats.family: config``), Holm runs over every study's claims together: each study's
verdicts then read every study's results, and every study trains.

    python -m ablation.selection CONFIG [--studies lesson,length]   # the path of their report
    python -m ablation.selection CONFIG --studies length --target  # what to ask Snakemake for
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys

from .config import Config, ConfigError, load

SEPARATOR = "+"
"""Between the study names of a selection's report file (ablation_report.lesson+length.html): no
study name holds it (the schema allows letters, digits and _ . -)."""
FULL_REPORT = "ablation_report.html"


def names(cfg: Config, text: str | None) -> list[str]:
    """The studies a comma list names, in the config's order; nothing named: every study. An
    unknown name is a ConfigError that lists the config's studies."""
    asked = [n.strip() for n in (text or "").split(",") if n.strip()]
    if not asked:
        return list(cfg.studies)
    unknown = [n for n in asked if n not in cfg.studies]
    if unknown:
        raise ConfigError(f"STUDY: no study {', '.join(map(repr, unknown))} in the config (its studies: "
                          f"{', '.join(cfg.studies)})")  # fmt: skip
    return [n for n in cfg.studies if n in asked]


def family(cfg: Config) -> str:
    return cfg.stats.get("family", "study")


def judged_with(cfg: Config, chosen) -> list[str]:
    """The studies whose results the claims of ``chosen`` read, in the config's order: the chosen
    studies when each study is its own family, every study when the config is one."""
    return list(cfg.studies) if family(cfg) == "config" else [n for n in cfg.studies if n in chosen]


def why_every_study(cfg: Config, chosen) -> str | None:
    """Why ``chosen`` need the other studies' runs, in one sentence; None when they do not."""
    if judged_with(cfg, chosen) == [n for n in cfg.studies if n in chosen]:
        return None
    return (f"stats.family is config: the claims of {', '.join(chosen)} are one Holm family with every study's "
            f"claims, so their verdicts read every study's results, and every study of the config trains.")  # fmt: skip


def left_out(cfg: Config, chosen) -> list[str]:
    """The studies of the config that ``chosen`` leaves out, in the config's order."""
    return [n for n in cfg.studies if n not in chosen]


def restrict(cfg: Config, chosen) -> Config:
    """The config with the ``chosen`` studies only (``raw`` stays whole: it is what was given)."""
    return dataclasses.replace(cfg, studies={n: cfg.studies[n] for n in cfg.studies if n in chosen})


def report_name(cfg: Config, chosen) -> str:
    """``ablation_report.html`` for every study of the config, ``ablation_report.<a+b>.html`` for some."""
    chosen = [n for n in cfg.studies if n in chosen]
    return FULL_REPORT if chosen == list(cfg.studies) else f"ablation_report.{SEPARATOR.join(chosen)}.html"


def report_file(cfg: Config, chosen) -> str:
    """The report of ``chosen``, relative to the working folder: under the config's outdir."""
    return os.path.normpath(os.path.join(cfg.outdir, "reports", report_name(cfg, chosen)))


def from_targets(cfg: Config, targets) -> list[str]:
    """The studies a Snakemake run's targets make, in the config's order: a selection's report names
    them, a file under ``<outdir>/results/<study>/`` its study; no target, ``all``, the full report or
    anything else: every study. Their claims are registered before their runs (ablation.registration),
    and no other study's folder is made."""
    targets = [os.path.normpath(str(t)) for t in targets]
    if not targets:
        return list(cfg.studies)
    results = os.path.normpath(os.path.join(cfg.outdir, "results"))
    chosen: set[str] = set()
    for target in targets:
        head, name = os.path.split(target)
        if name.startswith("ablation_report.") and name != FULL_REPORT and name.endswith(".html"):
            chosen.update(name[len("ablation_report."):-len(".html")].split(SEPARATOR))
        elif head == results or head.startswith(results + os.sep):
            chosen.add(os.path.relpath(target, results).split(os.sep)[0])
        else:
            return list(cfg.studies)
    return judged_with(cfg, chosen)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ablation.selection", description=__doc__.splitlines()[0])
    ap.add_argument("config")
    ap.add_argument("--studies", default="", help="a comma list of study names (default: every study)")
    ap.add_argument("--absolute", action="store_true", help="the path from the file system's root")
    ap.add_argument("--target", action="store_true",
                    help="the Snakemake target instead: the report of some studies, or `all` for every study")  # fmt: skip
    args = ap.parse_args(argv)
    try:
        cfg = load(args.config)
        chosen = names(cfg, args.studies)
    except ConfigError as exc:
        print(f"config error: {exc}", file=sys.stderr)
        return 1
    path = report_file(cfg, chosen)
    if args.target:
        # every study: the workflow's default rule, which also asks for the adaptive studies' tables
        print("all" if not left_out(cfg, chosen) else path)
    else:
        print(os.path.abspath(path) if args.absolute else path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
