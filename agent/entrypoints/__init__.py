"""The ways into the product: the command line (``cli``) today; an HTTP service, chat and MCP later.

Every entry point reads its environment through ``settings`` and maps failures through ``errors``, so an exit
code or an HTTP status is decided in one table. Nothing here imports the developer tooling (``evals``): its
commands are plugins (``cli.PLUGIN_GROUP``).
"""
