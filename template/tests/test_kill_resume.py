"""Slow: a training process killed with SIGKILL resumes from its last checkpoint and ends as if never killed."""

import json
import os
import random
import re
import signal
import subprocess
import time

import pytest
import tensorflow as tf
from conftest import MAIN, PROJECT_DIR

pytestmark = pytest.mark.slow

STEPS, INTERVAL = 60, 6
RUN = [
    "Runtime.train_steps = 60",
    "Runtime.checkpoint_every = 6",
    "Runtime.eval_every = 60",
    "Runtime.steps_per_execution = 2",
]


def command(model_dir, data_dir, *bindings):
    flags = [f"--gin_param={b}" for b in (*RUN, *bindings)]
    return [
        *MAIN,
        "--mode=train_and_eval",
        "--gin_file=configs/smoke.gin",
        f"--data_dir={data_dir}",
        f"--model_dir={model_dir}",
        *flags,
    ]


def finish(model_dir, data_dir, *bindings):
    result = subprocess.run(
        command(model_dir, data_dir, *bindings), cwd=PROJECT_DIR, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stderr


def latest_step(model_dir):
    path = tf.train.latest_checkpoint(str(model_dir / "checkpoints"))
    return int(path.rsplit("-", 1)[1]) if path else 0


def kill_when(model_dir, data_dir, ready, *bindings, timeout=120):
    """Starts training and SIGKILLs it when ready() is true; returns the last step its progress bar showed."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")  # the progress bar must show each step before its checkpoint
    process = subprocess.Popen(
        command(model_dir, data_dir, *bindings),
        cwd=PROJECT_DIR,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + timeout
        while not ready() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.001)
        process.send_signal(signal.SIGSTOP)  # freeze it where it is, then kill it there
        process.send_signal(signal.SIGKILL)
    finally:
        process.kill()
        output = process.communicate(timeout=30)[0].decode(errors="replace")
    assert process.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    shown = re.findall(rf"(\d+)/{STEPS}", output)
    return int(shown[-1]) if shown else 0


def eval_metrics(model_dir):
    return json.loads((model_dir / "eval_metrics.json").read_text())


def test_sigkill_at_a_random_step_then_rerun_ends_like_an_uninterrupted_run(tmp_path, data_dir):
    finish(tmp_path / "straight", data_dir)
    killed = tmp_path / "killed"
    start = []

    def some_time_after_the_first_checkpoint():
        if latest_step(killed) and not start:
            start.append(time.monotonic() + random.uniform(0, 1.5))
        return bool(start) and time.monotonic() > start[0]

    reached = kill_when(killed, data_dir, some_time_after_the_first_checkpoint)
    saved = latest_step(killed)
    log = finish(killed, data_dir)
    assert f"resuming at step {saved}." in log
    assert 0 <= reached - saved <= INTERVAL, f"killed at step {reached}, resumed at {saved}: repeated too much"
    print(f"killed at step {reached}, resumed at step {saved}: {reached - saved} steps repeated")

    straight, resumed = eval_metrics(tmp_path / "straight"), eval_metrics(killed)
    assert resumed["step"] == straight["step"] == STEPS
    reader = tf.train.load_checkpoint(str(killed / "checkpoints"))
    assert reader.get_tensor("optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE") == STEPS
    # Same data order, same augmentation seeds, same initial weights: only the order of float additions in
    # multi-threaded CPU kernels may differ, which moves the fifth significant digit at most.
    assert resumed["loss"] == pytest.approx(straight["loss"], rel=1e-4)
    assert resumed["accuracy"] == pytest.approx(straight["accuracy"], abs=1 / resumed["examples"])


def test_sigkill_during_a_checkpoint_write_leaves_a_readable_checkpoint_directory(tmp_path, data_dir):
    # A checkpoint after every call: each write is a chance to catch one in the act, whatever the model's size.
    often = "Runtime.checkpoint_every = 2"
    for attempt in range(5):
        model_dir = tmp_path / f"attempt{attempt}"

        def writing_after_a_checkpoint(model_dir=model_dir):
            temporary = any("_temp" in p.name for p in (model_dir / "checkpoints").glob("*"))
            return temporary and latest_step(model_dir) > 0

        kill_when(model_dir, data_dir, writing_after_a_checkpoint, often)
        if writing_after_a_checkpoint():
            break
    else:
        pytest.fail("no kill landed during a checkpoint write in 5 attempts")
    saved = latest_step(model_dir)
    reader = tf.train.load_checkpoint(str(model_dir / "checkpoints"))  # the latest complete checkpoint still reads
    assert reader.get_tensor("optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE") == saved
    log = finish(model_dir, data_dir, often, f"Runtime.train_steps = {saved + INTERVAL}", "Runtime.eval_every = 1000")
    assert f"resuming at step {saved}." in log
    assert latest_step(model_dir) == saved + INTERVAL
