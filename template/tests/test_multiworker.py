"""Slow: two worker processes on 127.0.0.1 train together under MultiWorkerMirroredStrategy (TF_CONFIG)."""

import json
import os
import re
import socket
import subprocess

import pytest
from conftest import MAIN, PROJECT_DIR

pytestmark = pytest.mark.slow

# configs/smoke.gin's model and steps, with configs/multiworker.gin's strategy.
SMALL = [
    "Runtime.strategy = 'multiworker'",
    "Runtime.global_batch_size = 16",
    "Runtime.connect_timeout_s = 60.0",
]


def free_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def run_workers(mode, data_dir, model_dir, *bindings, config="configs/smoke.gin", timeout=240):
    """Runs `mode` on two workers at once; returns each worker's stderr. Kills both if either outlives `timeout`.

    The smoke config gets SMALL's bindings, to train on two workers; a shipped config runs as it is.
    """
    workers = [f"127.0.0.1:{port}" for port in free_ports(2)]
    command = [*MAIN, f"--mode={mode}", f"--gin_file={config}"]
    small = SMALL if config == "configs/smoke.gin" else []
    command += [f"--gin_param={b}" for b in (*small, *bindings)]
    command += [f"--data_dir={data_dir}", f"--model_dir={model_dir}"]
    processes = []
    for index in range(2):
        tf_config = {"cluster": {"worker": workers}, "task": {"type": "worker", "index": index}}
        env = dict(os.environ, TF_CONFIG=json.dumps(tf_config), TF_CPP_MIN_LOG_LEVEL="1")
        processes.append(
            subprocess.Popen(
                command, cwd=PROJECT_DIR, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
        )
    try:
        outputs = [p.communicate(timeout=timeout) for p in processes]
    finally:
        for p in processes:
            p.kill()
            p.wait(timeout=30)
    for p, (_, err) in zip(processes, outputs, strict=True):
        assert p.returncode == 0, err[-4000:]
    return [err for _, err in outputs]


def test_two_workers_train_as_one_and_only_the_chief_writes(tmp_path, data_dir):
    logs = run_workers("train", data_dir, tmp_path)

    shards = [re.search(r"Input pipeline (\d) of 2 reads (.+)\.", log).groups() for log in logs]
    assert sorted(index for index, _ in shards) == ["0", "1"]
    assert shards[0][1] != shards[1][1], "the workers read different shards"

    fingerprints = [re.findall(r"Step 4: trainable weights fingerprint (\S+)", log) for log in logs]
    assert fingerprints[0] and fingerprints[0] == fingerprints[1], "the workers end with the same weights"

    assert sorted(os.listdir(tmp_path)) == ["checkpoints", "eval", "operative_config.gin", "train"]  # no .worker-*
    assert len(os.listdir(tmp_path / "train")) == 1, "one writer of summaries"
    checkpoints = sorted(os.listdir(tmp_path / "checkpoints"))
    assert checkpoints == ["checkpoint", *(f"ckpt-{s}.{e}" for s in (2, 4) for e in ("data-00000-of-00001", "index"))]

    # 'auto' resolves to the multi-worker strategy under TF_CONFIG: predict must still run on the chief alone.
    for mode, output in (("export", "export"), ("predict", "predictions_eval.csv")):
        logs = run_workers(mode, data_dir, tmp_path, "Runtime.strategy = 'auto'")
        assert "runs on the chief alone" in logs[1]
        assert os.path.exists(tmp_path / output)
    assert os.listdir(tmp_path / "export") == ["4"]


def test_the_shipped_config_trains(tmp_path, data_dir):
    # Its network, batch and XLA setting as shipped: the smoke config above turns XLA off. Two steps.
    steps = ("Runtime.train_steps = 2", "Runtime.warmup_steps = 1", "Runtime.steps_per_execution = 1")
    logs = run_workers("train", data_dir, tmp_path, *steps, config="configs/multiworker.gin")
    fingerprints = [re.findall(r"Step 2: trainable weights fingerprint (\S+)", log) for log in logs]
    assert fingerprints[0] and fingerprints[0] == fingerprints[1], "the workers end with the same weights"


def test_a_worker_whose_peer_never_starts_fails_in_time_and_names_it(tmp_path, data_dir):
    # TensorFlow alone waits for worker 1 with the GIL held: still waiting after 10 minutes, measured.
    workers = [f"127.0.0.1:{port}" for port in free_ports(2)]
    tf_config = {"cluster": {"worker": workers}, "task": {"type": "worker", "index": 0}}
    command = [*MAIN, "--mode=train", "--gin_file=configs/smoke.gin"]
    command += [f"--gin_param={b}" for b in (*SMALL, "Runtime.connect_timeout_s = 5.0")]
    command += [f"--data_dir={data_dir}", f"--model_dir={tmp_path}"]
    env = dict(os.environ, TF_CONFIG=json.dumps(tf_config), TF_CPP_MIN_LOG_LEVEL="1")
    result = subprocess.run(command, cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        f"Error: TF_CONFIG names worker 1 at {workers[1]}, which did not answer in 5 s: start every worker with the "
        "same cluster and its own task index, check the addresses and firewall, or raise Runtime.connect_timeout_s."
    )
