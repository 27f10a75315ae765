"""What `make reproduce` prints per finished run fits a 100-column terminal: a long run id gives up
its middle, never its study or its seed, and a short line is left as it is."""

import pytest

from ablation import progress

METRICS = {"test_acc": "0.973", "train_seconds": "1234.5", "status": "ok"}
STAMP = "[14:02:11] "


@pytest.mark.parametrize("run_id", [
    "pos_enc~none/seed~0",
    "pos_enc~learned/attn_mask~bidirectional/seq_len~32/seed~7",
    "pos_enc~learned/attn_mask~bidirectional/seq_len~32/lr~0.003/epochs~300/warmup~100/norm~pre/heads~8/seed~12",
])  # fmt: skip
def test_a_run_line_fits_100_columns_and_keeps_its_study_and_seed(run_id):
    label = f"position  {run_id}"
    line = STAMP + progress.run_line(label, METRICS, progress.WIDTH - len(STAMP))
    assert len(line) <= progress.WIDTH, line
    assert line.startswith(STAMP + "position  pos_enc~") and f"{run_id.rsplit('/', 1)[1]}: ok, test accuracy 0.973" in line
    if len(STAMP + label + ": ok, test accuracy 0.973, 1234.5 s") <= progress.WIDTH:
        assert label in line  # nothing cut where nothing needs to be


def test_a_run_without_metrics_says_so_within_the_width():
    label = "position  " + "/".join(f"f{i}~{'x' * 6}" for i in range(12)) + "/seed~3"
    line = progress.run_line(label, None, 89)
    assert len(line) <= 89 and line.endswith("seed~3: finished (no metrics.csv)")
