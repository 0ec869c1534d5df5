"""The engine that talks to a running vLLM (or any OpenAI-compatible) server over HTTP.

``engine`` is :class:`~workbench.engines.server.engine.VllmServerEngine`; ``calls`` sends one
page and retries; ``sse`` reads the stream; ``info`` learns what the server is and does."""
