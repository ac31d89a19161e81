"""`python -m scaffold benchmark`: each task's training speed next to plain Keras fit on the same network and data.

For each task, generates its default project (timed), writes its embedded data, then in one process runs every
configuration of scaffold/speed_runs.py on the same network, data and batch, interleaved. It adds the project's own
`--mode=benchmark` on cpu.gin and cpu_replicas.gin (feed ratio, efficiency, MFU) and times the project's test suite.
It prints the Markdown tables that the README's Performance section quotes. About 10 minutes a task on 2 cores;
nothing is downloaded.
"""

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from scaffold import cli
from scaffold.answers import CHOICES, DATASETS
from scaffold.hooks import ANSWERS_FILE

TIMEOUT_S = 1800
DEFAULT = "generated default (cpu.gin), from TFRecords"
KERAS = "plain Keras fit, numpy arrays"


def _run(command, cwd, **kwargs):
    print("$", " ".join(str(part) for part in command), file=sys.stderr, flush=True)
    return subprocess.run(command, cwd=cwd, check=True, timeout=TIMEOUT_S, text=True, **kwargs)


def benchmark(output_dir, windows, task):
    """Runs everything for `task` in `output_dir` (replaced); returns the figures, as the table prints them."""
    output_dir = Path(output_dir).resolve()
    shutil.rmtree(output_dir, ignore_errors=True)
    start = time.perf_counter()
    project = Path(cli.new([f"task={task}"], output_dir))
    generation_s = time.perf_counter() - start
    answers = json.loads((project / ANSWERS_FILE).read_text())
    package, data_dir = answers["package_name"], f"data/{DATASETS[answers['task']]}"
    _run([sys.executable, "-m", f"{package}.prepare_data", "--output_dir", data_dir], project)

    speed_runs = Path(__file__).with_name("speed_runs.py")
    command = [sys.executable, speed_runs, project, project / data_dir, "--package", package]
    runs = json.loads(_run([*command, f"--windows={windows}"], project, stdout=subprocess.PIPE).stdout)

    modes = {}
    for config in ("cpu", "cpu_replicas"):
        model_dir = project / "runs" / f"benchmark-{config}"
        flags = [f"--gin_file=configs/{config}.gin", f"--data_dir={data_dir}", f"--model_dir={model_dir}"]
        _run([sys.executable, "-m", f"{package}.main", "--mode=benchmark", *flags], project)
        modes[config] = json.loads((model_dir / "benchmark.json").read_text())

    start = time.perf_counter()
    _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], project)
    suite_s = time.perf_counter() - start
    return {"generation_s": generation_s, "suite_s": suite_s, "runs": runs, "modes": modes}


def table(figures):
    """The figures as Markdown: training rates and ratios, then the --mode=benchmark figures per config."""
    rates = figures["runs"]["rates"]
    lines = ["| configuration (same network, data and batch) | examples/s | vs plain Keras |", "|---|---:|---:|"]
    for name, rate in rates.items():
        lines.append(f"| {name} | {rate:,.0f} | {rate / rates[KERAS]:.2f}x |")
    spe1 = rates.get("generated, steps_per_execution=1")
    lines += [
        "",
        f"Generated default / plain Keras fit: {rates[DEFAULT] / rates[KERAS]:.2f}",
        f"Generated default / steps_per_execution=1: {rates[DEFAULT] / spe1:.2f}" if spe1 else "",
        "",
        "| --mode=benchmark | input (a) | step (b) | end to end (c) | feed a/b | efficiency c/b | first step | MFU |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for config, m in figures["modes"].items():
        lines.append(
            f"| {config}.gin | {m['input_examples_per_sec']:,.0f} | {m['step_examples_per_sec']:,.0f} "
            f"| {m['e2e_examples_per_sec']:,.0f} | {m['feed_ratio']:.2f} | {m['efficiency']:.2f} "
            f"| {m['first_step_sec']:.1f} s | {m['mfu']:.0%} of {m['peak_flops_per_sec'] / 1e9:,.0f} GFLOP/s |"
        )
    lines += [
        "",
        f"Generation: {figures['generation_s']:.2f} s. Generated test suite: {figures['suite_s']:.0f} s.",
    ]
    return "\n".join(lines)


def main(output_dir, windows):
    figures = {}
    for task in CHOICES["task"]:
        figures[task] = benchmark(Path(output_dir) / task, windows, task)
    # Kept, so that several runs (each with its own --output-dir) can be compared: the README quotes medians.
    (Path(output_dir) / "figures.json").write_text(json.dumps(figures, indent=1))
    for task, task_figures in figures.items():
        print(f"\n## {task}\n\n{table(task_figures)}")
    return figures
