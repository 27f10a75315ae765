"""Transformer ablation study: the order task, the model, its training and the study's analysis."""

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_DIR = PACKAGE_DIR.parents[1]
SCHEMA_PATH = REPO_DIR / "workflow" / "schemas" / "config.schema.yaml"
