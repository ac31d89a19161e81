"""Run the project: main.py trains and evaluates the smoke config on the prepared data."""

import json

import pytest
import tensorflow as tf
from conftest import run_main

pytestmark = pytest.mark.points(5)


def test_the_project_trains_and_evaluates(tmp_path, data_dir):
    assert run_main(tmp_path, data_dir, "--mode=train_and_eval") is None
    metrics = json.loads((tmp_path / "eval_metrics.json").read_text())
    assert 0.0 <= metrics["accuracy"] <= 1.0
    assert tf.train.latest_checkpoint(str(tmp_path / "checkpoints")), "training saved no checkpoint"
