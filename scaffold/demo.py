"""`python -m scaffold demo`: generate the default project, prepare its embedded data, train it on CPU, report.

This is the template's main job end to end, as a new user would run it: the figures it prints (generation time,
training time, eval accuracy, peak memory) are the ones the README quotes.
"""

import json
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from scaffold import cli
from scaffold.answers import DATASETS
from scaffold.hooks import ANSWERS_FILE

TIMEOUT_S = 1800  # the CPU run takes a few minutes; a hang must not last forever


def _run(command, cwd):
    print("$", " ".join(command), flush=True)
    subprocess.run(command, cwd=cwd, check=True, timeout=TIMEOUT_S)


def demo(output_dir, task=None):
    """Runs the demo of the default project (or of `task`'s) in `output_dir`; returns its eval metrics."""
    output_dir = Path(output_dir).resolve()
    start = time.perf_counter()
    shutil.rmtree(output_dir, ignore_errors=True)  # a previous demo is replaced, never half-reused
    project = Path(cli.new([f"task={task}"] if task else [], output_dir))
    generated = time.perf_counter()
    answers = json.loads((project / ANSWERS_FILE).read_text())
    package, data_dir = answers["package_name"], f"data/{DATASETS[answers['task']]}"
    _run([sys.executable, "-m", f"{package}.prepare_data", "--output_dir", data_dir], project)
    prepared = time.perf_counter()
    model_dir = "runs/cpu"
    train = [
        "--mode=train_and_eval",
        "--gin_file=configs/cpu.gin",
        f"--data_dir={data_dir}",
        f"--model_dir={model_dir}",
    ]
    _run([sys.executable, "-m", f"{package}.main", *train], project)
    trained = time.perf_counter()
    metrics = json.loads((project / model_dir / "eval_metrics.json").read_text())
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(
        f"\nDemo project: {project}\n"
        f"Generated in {generated - start:.2f} s; data prepared in {prepared - generated:.1f} s; "
        f"trained {metrics['step']} steps and evaluated in {trained - prepared:.1f} s; "
        f"peak memory {peak_mib:.0f} MiB.\n"
        f"Eval accuracy: {metrics['accuracy']:.4f} on {metrics['examples']} examples (loss {metrics['loss']:.4f}).\n"
        f"TensorBoard logs: {project / model_dir} (tensorboard --logdir {project / model_dir})"
    )
    return metrics
