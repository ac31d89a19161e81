"""Each mode, run through main.py with configs/smoke.gin; resume, eval outputs and the prediction CSV."""

import csv
import json
import os

import numpy as np
import pytest
import tensorflow as tf
from conftest import NUM_EVAL, main_error, read, run_main, setup

from {{ cookiecutter.package_name }}.runtime import modes, records


def test_train_writes_checkpoints_summaries_and_the_operative_config(trained_once):
    # trained_once is `--mode=train` on the smoke config, run once for the whole session.
    checkpoint = tf.train.get_checkpoint_state(str(trained_once / "checkpoints"))
    assert [os.path.basename(p) for p in checkpoint.all_model_checkpoint_paths] == ["ckpt-2", "ckpt-4"]
    assert "Runtime.train_steps = 4" in read(trained_once / "operative_config.gin")
    assert os.listdir(trained_once / "train")


def test_the_operative_config_is_written_before_the_first_step(tmp_path, data_dir, monkeypatch):
    def crash(*args):
        raise RuntimeError("crashed at step 1")

    monkeypatch.setattr(modes.Trainer, "train", crash)
    with pytest.raises(RuntimeError, match="crashed"):
        run_main(tmp_path, data_dir, "--mode=train")
    assert "Runtime.global_batch_size = 8" in read(tmp_path / "operative_config.gin")


def test_train_and_eval_then_eval_write_metrics(tmp_path, data_dir):
    run_main(tmp_path, data_dir, "--mode=train_and_eval")
    metrics = json.loads(read(tmp_path / "eval_metrics.json"))
    assert metrics["step"] == 4 and metrics["examples"] == NUM_EVAL
    assert 0.0 <= metrics["accuracy"] <= 1.0 and metrics["loss"] > 0
    os.remove(tmp_path / "eval_metrics.json")
    run_main(tmp_path, data_dir, "--mode=eval", "--split=train")
    assert json.loads(read(tmp_path / "eval_metrics.json"))["examples"] == 96


def test_an_interrupted_run_resumes_at_the_saved_step(trained, trained_once, data_dir):
    # As if killed before the checkpoint at step 4: the same command then trains steps 3 and 4 again.
    for path in (trained / "checkpoints").glob("ckpt-4.*"):
        path.unlink()
    (trained / "checkpoints" / "checkpoint").write_text('model_checkpoint_path: "ckpt-2"\n')
    run_main(trained, data_dir, "--mode=train")
    resumed, straight = (tf.train.load_checkpoint(str(path / "checkpoints")) for path in (trained, trained_once))
    names = [name for name in straight.get_variable_to_shape_map() if name != "_CHECKPOINTABLE_OBJECT_GRAPH"]
    assert resumed.get_tensor("optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE") == 4 and len(names) > 4
    for name in names:
        np.testing.assert_allclose(resumed.get_tensor(name), straight.get_tensor(name), rtol=1e-5, atol=1e-6)


def test_predict_writes_every_example_in_order(trained, data_dir):
    run_main(trained, data_dir, "--mode=predict")
    with open(trained / "predictions_eval.csv") as f:
        rows = list(csv.DictReader(f))
    _, task, info = setup(data_dir)
    labels = {}
    for batch in task.input_pipeline("eval", False, 8)(tf.distribute.InputContext()).as_numpy_iterator():
        real = batch["weight"] > 0
        labels |= dict(zip(batch["index"][real].tolist(), batch["label"][real].tolist(), strict=True))
    keys = records.read_keys(info.files("eval"))
    assert [r["key"] for r in rows] == keys and len(rows) == NUM_EVAL
    assert [r["label"] for r in rows] == [info.class_names[labels[i]] for i in range(NUM_EVAL)], "each row's own label"
    probabilities = np.array([[float(v) for k, v in r.items() if k.startswith("p_")] for r in rows])
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-4)
    assert {r["prediction"] for r in rows} <= set(info.class_names)


@pytest.mark.parametrize("mode", ["eval", "predict", "export"])
def test_modes_that_need_a_checkpoint_say_so(tmp_path, data_dir, mode, capsys):
    assert main_error(capsys, tmp_path, data_dir, f"--mode={mode}").endswith("has none: train first.")


def test_a_rerun_that_finds_training_done_still_evaluates(trained, data_dir):
    # As after a kill that landed between the last checkpoint and the last evaluation.
    run_main(trained, data_dir, "--mode=train_and_eval")
    assert json.loads(read(trained / "eval_metrics.json"))["step"] == 4
