"""The benchmark's table: every configuration's rate, its ratio to plain Keras, and the ratios the README quotes."""

from scaffold.benchmark import DEFAULT, KERAS, table

MODE = {
    "input_examples_per_sec": 9000.0,
    "step_examples_per_sec": 1500.0,
    "e2e_examples_per_sec": 1400.0,
    "feed_ratio": 6.0,
    "efficiency": 0.93,
    "first_step_sec": 2.5,
    "mfu": 0.41,
    "peak_flops_per_sec": 2.0e11,
}


def test_table_gives_rates_ratios_and_the_benchmark_mode_figures():
    rates = {
        DEFAULT: 1500.0,
        KERAS: 1000.0,
        "generated, steps_per_execution=1": 1200.0,
        "generated loop, arrays in memory": 3000.0,
    }
    figures = {"generation_s": 0.4, "suite_s": 55.0, "runs": {"rates": rates}, "modes": {"cpu": MODE}}
    text = table(figures)
    assert f"| {DEFAULT} | 1,500 | 1.50x |" in text
    assert "| generated loop, arrays in memory | 3,000 | 3.00x |" in text
    assert "Generated default / plain Keras fit: 1.50" in text
    assert "Generated default / steps_per_execution=1: 1.25" in text
    assert "| cpu.gin | 9,000 | 1,500 | 1,400 | 6.00 | 0.93 | 2.5 s | 41% of 200 GFLOP/s |" in text
    assert "Generation: 0.40 s. Generated test suite: 55 s." in text
