"""Tier-2 Kubernetes evidence tests (real kube-apiserver)."""
