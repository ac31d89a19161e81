"""--mode=benchmark: can the host feed the accelerator, and how much of the step's speed does training get?

Measures, in examples per second over the global batch: (a) the input pipeline alone, from TFRecord shards to
per-replica batches; (b) the compiled train step on a batch already on the devices, the ceiling; (c) end-to-end
training. a/b is the feed ratio (below 1 the accelerator waits for data) and c/b the efficiency. Each rate is the
median of Runtime.benchmark_windows timed windows, after a warm-up window. A window is Runtime.benchmark_steps steps
in whole calls of steps_per_execution, and at least one call.
The model FLOPs of a training example are counted from the traced graph, and the achieved FLOP/s are compared with
a matmul peak measured in the same run (MFU).
"""

import statistics
import time

import keras
import tensorflow as tf

# The matmul that measures the peak: large enough to keep every core busy, small enough to time in a second.
_PEAK_SIZE = 2048


def run(steps, train_batches, params):
    """Measures the training step of `steps` (steps.py) with `train_batches`, a distributed iterator.

    Returns the benchmark's figures.
    """
    calls = max(1, params.benchmark_steps // params.steps_per_execution)
    per_call = tf.constant(params.steps_per_execution)
    examples = calls * params.steps_per_execution * params.global_batch_size

    start = time.perf_counter()
    steps.train_steps(train_batches, tf.constant(1))  # traces, compiles and starts the pipeline
    first_step_sec = time.perf_counter() - start

    def input_window():
        for _ in range(calls * params.steps_per_execution):
            next(train_batches)

    batch = next(train_batches)

    def step_window():
        for _ in range(calls):
            steps.train_steps_on(batch, per_call)
        return steps.optimizer.iterations.numpy()  # reading a variable waits for the steps (TPU calls return early)

    def end_to_end_window():
        for _ in range(calls):
            steps.train_steps(train_batches, per_call)
        return steps.optimizer.iterations.numpy()

    # Interleaved, so a neighbour's load or thermal drift slows all three alike.
    windows = [input_window, step_window, end_to_end_window]
    times = {window: [] for window in windows}
    for repeat in range(params.benchmark_windows + 1):
        for window in windows:
            start = time.perf_counter()
            window()
            if repeat:  # the first round warms up
                times[window].append(time.perf_counter() - start)
    a, b, c = (examples / statistics.median(times[window]) for window in windows)
    flops = flops_per_example(steps, batch, params.global_batch_size)
    peak = matmul_peak(steps.strategy, params.precision)
    return {
        "input_examples_per_sec": a,
        "step_examples_per_sec": b,
        "e2e_examples_per_sec": c,
        "feed_ratio": a / b,
        "efficiency": c / b,
        "first_step_sec": first_step_sec,
        "flops_per_example": flops,
        "peak_flops_per_sec": peak,
        "mfu": flops * c / peak,
        "replicas": steps.strategy.num_replicas_in_sync,
        "global_batch_size": params.global_batch_size,
        "steps_per_execution": params.steps_per_execution,
        "precision": params.precision,
    }


def bottleneck(result):
    """One line: which side limits training, and what to try."""
    if result["feed_ratio"] < 1:
        return (
            f"Input-bound: the pipeline supplies {result['feed_ratio']:.0%} of what the step could take. Try more "
            "shards and input hosts, a smaller shuffle buffer, or data stored in the form that training reads."
        )
    if result["efficiency"] < 0.9:
        return (
            f"Host-bound: training reaches {result['efficiency']:.0%} of the step's speed although the pipeline keeps "
            "up alone. On an accelerator raise Runtime.steps_per_execution; on a CPU the pipeline and the step share "
            "the cores, so make preprocessing cheaper (store data in the form that training reads)."
        )
    return (
        f"Compute-bound: the step is the limit, at {result['mfu']:.0%} of the matmul peak. Try a larger per-replica "
        "batch, or mixed_bfloat16 on TPUs (mixed_float16 on GPUs); the input pipeline is not worth tuning."
    )


def table(result):
    rows = [
        ("input pipeline (a)", f"{result['input_examples_per_sec']:,.0f} examples/s"),
        ("train step on device (b)", f"{result['step_examples_per_sec']:,.0f} examples/s"),
        ("end to end (c)", f"{result['e2e_examples_per_sec']:,.0f} examples/s"),
        ("feed ratio a/b", f"{result['feed_ratio']:.2f}"),
        ("efficiency c/b", f"{result['efficiency']:.2f}"),
        ("first step (compile)", f"{result['first_step_sec']:.1f} s"),
        ("model FLOPs per example", f"{result['flops_per_example'] / 1e6:,.1f} M"),
        ("matmul peak", f"{result['peak_flops_per_sec'] / 1e9:,.0f} GFLOP/s"),
        ("MFU", f"{result['mfu']:.0%}"),
    ]
    return "\n".join(f"{name:<26}{value}" for name, value in rows) + "\n" + bottleneck(result)


def flops_per_example(steps, batch, global_batch_size):
    """Floating-point operations of one training example, counted from the traced graph of the training step.

    `batch` is a distributed batch: the step is traced under strategy.run, every replica's share included.
    """

    @tf.function
    def step(batch):
        return steps.strategy.run(steps.train_step, args=(batch,))

    graph = step.get_concrete_function(batch).graph
    options = tf.compat.v1.profiler.ProfileOptionBuilder.float_operation()
    options = tf.compat.v1.profiler.ProfileOptionBuilder(options).with_empty_output().build()
    return tf.compat.v1.profiler.profile(graph=graph, options=options).total_float_ops / global_batch_size


def matmul_peak(strategy, precision, min_seconds=0.25):
    """FLOP/s of square matmuls on every replica at once, in the compute dtype of `precision`."""
    dtype = keras.mixed_precision.Policy(precision).compute_dtype
    with strategy.scope():
        matrix = tf.Variable(tf.random.normal([_PEAK_SIZE, _PEAK_SIZE]), trainable=False)

    @tf.function
    def matmuls(repeats):
        def replica():
            x = tf.cast(matrix, dtype)
            total = tf.zeros([], dtype)
            for _ in tf.range(repeats):
                total += tf.reduce_sum(tf.matmul(x, x)[:1, :1])  # depends on the product, so nothing is skipped
            return total

        return strategy.run(replica)

    def seconds(repeats):
        start = time.perf_counter()
        strategy.experimental_local_results(matmuls(tf.constant(repeats)))[0].numpy()
        return time.perf_counter() - start

    seconds(1)  # traces and warms up
    repeats, elapsed = 1, seconds(1)
    while elapsed < min_seconds:
        repeats *= 2
        elapsed = seconds(repeats)
    # The best of three: a peak is what the hardware can do, and logical CPU replicas contend for the same cores.
    best = min(elapsed, seconds(repeats), seconds(repeats))
    return 2 * _PEAK_SIZE**3 * repeats * strategy.num_replicas_in_sync / best
