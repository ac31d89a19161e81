"""Nothing lost: SIGTERM saves and stops, a checkpoint from another model is refused, a NaN loss stops training."""

import os
import re
import signal
import threading
import time

import tensorflow as tf
from conftest import main_error, run_main
from task_bindings import SYNTHETIC


def latest_step(model_dir):
    path = tf.train.latest_checkpoint(str(model_dir / "checkpoints"))
    return int(path.rsplit("-", 1)[1]) if path else None


def files(path):
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in path.iterdir()}


def test_sigterm_saves_at_the_next_step_boundary_and_stops_cleanly(tmp_path, data_dir):
    def send_sigterm_after_the_first_checkpoint():
        deadline = time.monotonic() + 120
        while latest_step(tmp_path) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGTERM)

    watcher = threading.Thread(target=send_sigterm_after_the_first_checkpoint, daemon=True)
    watcher.start()
    # 1000 steps would take minutes: returning early shows that SIGTERM stopped the run.
    assert run_main(tmp_path, data_dir, "--mode=train_and_eval", "--gin_param=Runtime.train_steps = 1000") is None
    watcher.join(timeout=10)
    step = latest_step(tmp_path)
    assert 2 <= step < 1000
    reader = tf.train.load_checkpoint(str(tmp_path / "checkpoints"))
    assert reader.get_tensor("optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE") == step, "saved the step it reached"
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL, "the handler is removed afterwards"


def test_a_checkpoint_from_another_model_is_refused_before_training_and_kept(trained, data_dir, capsys):
    before = files(trained / "checkpoints")
    # Three classes: a model with another output layer.
    error = main_error(capsys, trained, data_dir, "--mode=train", *(f"--gin_param={b}" for b in SYNTHETIC))
    assert re.search(r"does not fit this model: .*incompatible.* new --model_dir", error)
    assert files(trained / "checkpoints") == before


def test_a_nan_loss_stops_training_and_the_last_good_checkpoint_stays_latest(trained, data_dir, capsys):
    blow_up = ["--gin_param=Runtime.train_steps = 8", "--gin_param=Runtime.base_learning_rate = 1e30"]
    error = main_error(capsys, trained, data_dir, "--mode=train", *blow_up)
    assert re.search(r"loss became nan in steps 5-6; .* still .*ckpt-4", error)
    assert latest_step(trained) == 4
