"""Tier 1 over the official Run:ai MCP server (issue 14): allow-list, transports, parity with REST, faults."""
