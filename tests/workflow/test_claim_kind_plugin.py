"""A plugin's claim kind, end to end: a plugin module (written here, the one place the kind exists)
registers a kind with ``ablation.kinds.claim_kind``; a folder that uses the pipeline as a Snakemake
module names it in a claim; the real Snakemake run validates the claim, trains, and writes the
claim's verdict and its words into claims.csv and the report."""

import textwrap

import pandas as pd
import pytest
import yaml

from conftest import REPO, snakemake

PLUGIN = textwrap.dedent('''
    """A claim kind of my own: the metric stays at or below a ceiling."""
    from ablation.kinds import ClaimKind, Condition, Part, claim_kind


    @claim_kind("at_most")
    class AtMost(ClaimKind):
        """a seed's value is at most ceiling."""

        keys = {"ceiling": {"type": "number", "minimum": 0, "maximum": 1, "description": "The most the metric may be."}}

        def parts(self, claim):
            ceiling = claim.keys["ceiling"]
            return [Part(Condition(0.0, ceiling, f"stayed at or below {ceiling:.0%}"))]

        def rule(self, claim):
            return f"a seed meets the claim when its value is at most {claim.keys['ceiling']}"
''')

CONFIG = {
    "plugins": ["my_kinds"],
    "stats": {"n_resamples": 99},
    "defaults": {"depth": 1, "d_model": 8, "heads": 2, "ff": 8, "head_hidden": 8, "n_train": 16, "n_test": 8, "epochs": 3},
    "studies": {"mine": {"fixed": {"arch": "encoder"}, "factors": {"pos_enc": ["none", "sinusoidal"]}, "seeds": list(range(6)),
                         "claims": [{"id": "blind-stays-low", "statement": "Blind to order, accuracy stays at most 60 %.",
                                     "kind": "at_most", "ceiling": 0.6, "where": {"pos_enc": "none"}}]}},
}  # fmt: skip


@pytest.mark.slow  # a Snakemake run of its own, a minute or more on 2 cores
def test_a_plugins_claim_kind_gets_a_verdict_through_the_pipeline_used_as_a_module(tmp_path):
    (tmp_path / "workflow").mkdir()
    (tmp_path / "config").mkdir()
    (tmp_path / "my_kinds.py").write_text(PLUGIN)
    (tmp_path / "config" / "config.yaml").write_text(yaml.safe_dump(CONFIG, sort_keys=False))
    (tmp_path / "workflow" / "Snakefile").write_text(
        f'configfile: "config/config.yaml"\n\n\nmodule ablation:\n    snakefile:\n        "{REPO}/workflow/Snakefile"\n'
        "    config:\n        config\n\n\nuse rule * from ablation\n"
    )
    snakemake(tmp_path, "--cores", "2")
    row = pd.read_csv(tmp_path / "results" / "mine" / "tables" / "claims.csv").iloc[0]
    assert (row["id"], row["kind"], row["verdict"], row["n"]) == ("blind-stays-low", "at_most", "SUPPORTED", 6)
    assert row["rule"].startswith("a seed meets the claim when its value is at most 0.6;")
    assert row["evidence"].startswith("mean over 1 cell(s): 6 of 6 seeds stayed at or below 60%")
    assert "blind-stays-low" in (tmp_path / "reports" / "ablation_report.html").read_text()
