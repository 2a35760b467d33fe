"""Evidence → signals, shared by every procedure: message rules, Kubernetes facts, common helpers."""
