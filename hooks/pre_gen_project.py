"""Refuses bad answers before cookiecutter renders anything; the checks live in scaffold/answers.py."""

import json
import sys

CONTEXT = json.loads({{ cookiecutter | tojson | tojson }})
sys.path.insert(0, {{ template_repo_dir | tojson }})

from scaffold import hooks  # noqa: E402

sys.exit(hooks.pre_gen(CONTEXT))
