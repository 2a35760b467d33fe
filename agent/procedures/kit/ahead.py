"""Reads named ahead: a node that fans out to independent reads names each once, as a :class:`Read` (the source's
method and its arguments); the read nodes make exactly that read, and :func:`announce` first tells the source
which reads are coming. A source that can send requests ahead of their use (the service's, on its event loop:
``RunaiClient.prefetch``) starts them all at once, so they overlap with no thread per read; each read node then
makes its read as always and takes the answer already under way. Any other source ignores the announcement.

:func:`speculate` names the reads that need only the workload id, beside its status, before the phase says
whether they are needed: only a source opened for it (the service's opt-in ``WD_SPECULATIVE_READS``) starts
them; one the procedure then does not make is stated as unused by that source, never used as evidence."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping


@dataclass(frozen=True)
class Read:
    """One Tier-1 read: ``source.<tool>(*args, **kwargs)``."""

    tool: str
    args: tuple = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    def __call__(self, source: Any) -> Any:
        return getattr(source, self.tool)(*self.args, **self.kwargs)


def speculate(source: Any, reads: Iterable[Read]) -> None:
    """Reads that may follow the status, whatever it says, to a source that starts them beside it (``speculate``)."""
    start = getattr(source, "speculate", None)
    if callable(start):
        for r in reads:
            start(r.tool, *r.args, **r.kwargs)


def announce(source: Any, reads: Iterable[Read]) -> None:
    """The reads the next step makes, to a source that can start them ahead (``prefetch``); else nothing."""
    start = getattr(source, "prefetch", None)
    if callable(start):
        for r in reads:
            start(r.tool, *r.args, **r.kwargs)
