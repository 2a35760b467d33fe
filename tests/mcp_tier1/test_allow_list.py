"""Only the allow-listed read tools can ever be called, whatever the server advertises (issue 14 acceptance)."""
from __future__ import annotations

import asyncio

import pytest

from tests.conftest import WID, event, world
from tests.mcp_tier1.conftest import counting
from workload_diagnose.tools.runai.mcp.allow import READ_TOOLS, McpCallRefused, check_message

OOM = world(events=[event("OOMKilled", "Container trainer was OOM killed")])


def test_a_tool_off_the_allow_list_raises_before_a_byte_is_sent(standin):
    from workload_diagnose.evals.mcp_standin import memory_connector
    from workload_diagnose.tools.runai.mcp.session import McpSession

    st, _ = standin(OOM, write_tools=True)
    sent: list = []
    session = McpSession(counting(memory_connector(st), sent), describe="t", timeout=5)
    try:
        session.connect()
        assert {"delete_workload", "manage_credentials", "whoami"} <= set(session.tools)  # advertised ...
        before = list(sent)
        for name in ("delete_workload", "manage_credentials", "whoami", "get_node_pods", "get_workload_pod_list"):
            with pytest.raises(McpCallRefused):
                session.call(name, {"workloadId": WID, "dryRun": True})
        with pytest.raises(McpCallRefused):  # an allowed tool with an argument our code never sends
            session.call("get_workload_status", {"workloadId": WID, "dryRun": False})
        assert sent == before  # ... but not one byte of those calls reached the transport
        # around the session, through the SDK's own call_tool: the guarded write stream refuses it
        for name in ("delete_workload", "manage_credentials"):
            fut = asyncio.run_coroutine_threadsafe(session._session.call_tool(name, {"workloadId": WID}),
                                                   session._loop)
            with pytest.raises(McpCallRefused):
                fut.result(timeout=5)
        assert sent == before and st.calls == []
        res, _ = session.call("get_workload_status", {"workloadId": WID})  # the counter does see real calls
        assert not res.is_error and sent[-1][0] == "tools/call" and len(sent) == len(before) + 1
    finally:
        session.close()


def test_the_write_stream_guard_refuses_other_methods_and_tools():
    from mcp_types import JSONRPCRequest

    for method, params in (("resources/read", {"uri": "file:///etc/passwd"}), ("completion/complete", {}),
                           ("tools/call", {"name": "delete_workload", "arguments": {"workloadId": WID}}),
                           ("tools/call", {"name": "get_workload_pods", "arguments": {"nodeName": "n"}})):
        with pytest.raises(McpCallRefused):
            check_message(JSONRPCRequest(jsonrpc="2.0", id=1, method=method, params=params))
    check_message(JSONRPCRequest(jsonrpc="2.0", id=2, method="tools/call",
                                 params={"name": "get_workload_pods", "arguments": {"workloadId": WID}}))


def test_a_server_advertising_write_tools_never_gets_a_call_for_them(mcp_diagnose):
    res, st, _ = mcp_diagnose(OOM, {"write_tools": True})
    assert {"delete_workload", "manage_credentials"} <= set(st.advertised())
    called = [n for n, _ in st.calls]
    assert called and set(called) <= set(READ_TOOLS)
    assert "get_workload_status" in called and res.category == "OOM_KILLED"


def test_a_renamed_tool_is_not_guessed_the_read_is_reported_missing(mcp_diagnose):
    res, st, _ = mcp_diagnose(OOM, {"rename": {"get_workload_pods": "get_workload_pod_list"}})
    assert "get_workload_pod_list" in st.advertised()
    assert all(n != "get_workload_pod_list" and n != "get_workload_pods" for n, _ in st.calls)
    assert res.category == "OOM_KILLED"  # the status and history still show the OOM kill
    assert any("does not offer the tool get_workload_pods" in x for x in res.limitations), res.limitations


def test_a_renamed_status_tool_is_the_fatal_unavailable_error(mcp_diagnose):
    from workload_diagnose.agent.api import ApiUnavailable

    with pytest.raises(ApiUnavailable, match="does not offer the tool get_workload_status"):
        mcp_diagnose(OOM, {"rename": {"get_workload_status": "workload_status"}})


def test_without_list_workloads_option_b_asks_for_the_workload_id(mcp_diagnose):
    res, st, _ = mcp_diagnose(OOM, {"omit": ("list_workloads",)}, workload_id=None, workload_name="job-a",
                              project="team")
    assert (res.outcome, res.route) == ("needs_input", "no_matching_workload")
    assert "workload ID" in res.report and st.calls == []
    assert any("does not offer the tool list_workloads" in x for x in res.limitations)
