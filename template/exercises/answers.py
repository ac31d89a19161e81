"""Your answers to exercises 2, 6 and 7; tests/exercises/ reads them. Replace each TODO with the assignment it asks."""

### BEGIN SOLUTION (Exercise 2, TODO)
{% if cookiecutter.task == 'image_classification' %}
STATIC_SHAPES = {"drop_remainder", "image_size"}
{% else %}
STATIC_SHAPES = {"drop_remainder", "sequence_length"}
{% endif %}
### END SOLUTION

### BEGIN SOLUTION (Exercise 6, TODO)
BOTTLENECKS = {"A": "input", "B": "compute", "C": "host"}
### END SOLUTION

### BEGIN SOLUTION (Exercise 7, TODO)
REPLICAS = {"v5e-1": 1, "v5e-8": 8, "v3-8": 8, "v4-8": 4}
TPU_BATCHES = {"v5e-1": 128, "v5e-8": 1024, "v3-8": 1024, "v4-8": 512}
### END SOLUTION
