"""A procedure's one declaration: everything a surface needs to offer it, so the surfaces derive from the registry.

Each procedure package's ``__init__`` holds one ``SPEC``; ``agent.procedures.REGISTRY`` lists the packages. From the
specs come the CLI commands (``agent.entrypoints.cli``), the HTTP routes (``agent.service.routes.procedures``), the
MCP tools (``agent.service.mcp``), LangGraph Studio's graphs (``agent.service.studio``; ``langgraph.json`` is checked
against them by a test) and the eval runner's case kinds (a scenario's ``procedure``). Strings name what is imported
only when used ("module:attribute"), so reading the specs (e.g. for ``--help``) imports no graph.

A ``runai`` procedure takes a ``DiagnosisRequest`` (its own subclass: the runner picks the procedure by the request's
type) in the kit's ``Context`` and returns a result with the ``failed --json`` core fields; its command, route and
tool are built from the spec with the Run:ai options every such procedure shares, or, when it names ``params`` (a
function whose typed keyword parameters are its own, returning its request), with those: its route's body and its
tool's parameters are that function's. A ``kube`` procedure (the
lifecycle view) has options of its own: its spec names its command and tool implementations.
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Any, Literal


def load(ref: str) -> Any:
    """``"package.module:attribute"`` → the attribute."""
    module, _, attr = ref.partition(":")
    return getattr(import_module(module), attr)


@dataclass(frozen=True)
class Command:
    """The CLI command: its name and help; ``impl`` ("module:function") when it has options of its own (its help is
    then the function's docstring)."""

    name: str
    help: str = ""
    impl: str | None = None


@dataclass(frozen=True)
class Route:
    """The HTTP route (POST ``path``; the body is ``agent.service.models.DiagnosisBody`` for a runai procedure)."""

    path: str
    summary: str
    operation: str  # the endpoint's name (OpenAPI operationId: ``<operation>_<path>_post``)
    tag: str
    ok: str  # what a 200 carries


@dataclass(frozen=True)
class Tool:
    """The MCP tool; ``impl`` ("module:function", synchronous, typed parameters) when it is not a runai one."""

    name: str
    title: str
    description: str
    use: str  # what it is for, in the server's instructions ("<name> for <use>")
    impl: str | None = None


@dataclass(frozen=True)
class ProcedureSpec:
    name: str  # the registry key (also the LangGraph Studio graph name)
    graph: str  # "module:build_graph"
    kind: Literal["runai", "kube"]
    input: str  # "module:Model": the graph's request (runai: a DiagnosisRequest type, one per procedure)
    output: str  # "module:Model": the result (its ``report`` field is the text report)
    report: str | None = None  # "module:function": result → the text report (runai commands print it)
    # "module:function": the procedure's own parameters (typed keywords → its request; bad input is InvalidInput)
    # when they are not the workload options every runai procedure shares (its route body and tool take them)
    params: str | None = None
    command: Command | None = None
    route: Route | None = None
    tool: Tool | None = None
    eval_cases: bool = False  # scenarios may name it (``case.json`` "procedure"): the eval runner runs them

    def build_graph(self) -> Any:
        return load(self.graph)()

    @property
    def input_type(self) -> type:
        return load(self.input)

    @property
    def output_type(self) -> type:
        return load(self.output)

    def as_input(self, request: Any) -> Any:
        """A request built with the shared rules (``build_request``) as this procedure's own input type."""
        want = self.input_type
        return request if type(request) is want else want.model_validate(dict(request))
