"""The categories (a table that carries precedence, recommendation and what evidence each needs) and the
deterministic classifier that reads it."""
from agent.taxonomy.categories import BY_NAME, CATEGORIES, NAMES, Category
from agent.taxonomy.classifier import Verdict, classify

__all__ = ["BY_NAME", "CATEGORIES", "NAMES", "Category", "Verdict", "classify"]
