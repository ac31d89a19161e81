"""Bindings of this task's config that the shared tests need."""

SYNTHETIC = ["Runtime.data_source = 'synthetic'", "Task.num_classes = 3", "Task.vocabulary_size = 100"]
