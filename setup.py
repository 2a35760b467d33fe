"""Where the installed packages come from: the repository's folders become subpackages of the one import name
``workload_diagnose`` (so an application that has its own ``agent`` or ``tools`` package, or installs
``guardrails-ai``, can install this beside it). Everything else is in ``pyproject.toml``."""
from setuptools import find_packages, setup

FOLDERS = ("agent", "tools", "guardrails", "evals")
packages = ["workload_diagnose"] + [f"workload_diagnose.{p}" for p in find_packages(include=[f"{f}*" for f in FOLDERS])]
setup(packages=packages, package_dir={"workload_diagnose": "workload_diagnose",
                                      **{f"workload_diagnose.{f}": f for f in FOLDERS}})
