"""Where the installed packages come from: the repository's folders become subpackages of the one import name
``workload_diagnose`` (so an application that has its own ``agent`` or ``tools`` package, or installs
``guardrails-ai``, can install this beside it). The user documentation (``docs/``, Markdown only) ships as
``workload_diagnose/docs/``, so an operator who installed the wheel has the pages ``--help`` names (``serve --help``
prints the installed path). Everything else is in ``pyproject.toml``."""
from setuptools import find_packages, setup

FOLDERS = ("agent", "tools", "guardrails", "evals")
DOCS = {"workload_diagnose.docs": "docs", "workload_diagnose.docs.reference": "docs/reference"}
packages = ["workload_diagnose"] + [f"workload_diagnose.{p}" for p in find_packages(include=[f"{f}*" for f in FOLDERS])]
setup(packages=packages + list(DOCS), package_dir={"workload_diagnose": "workload_diagnose", **DOCS,
                                                   **{f"workload_diagnose.{f}": f for f in FOLDERS}},
      package_data={name: ["*.md"] for name in DOCS})
