"""LLM access: an OpenAI-compatible chat client with retries and typed replies, and reply caches."""

from hopgraph.llm.cache import CachedReply, LLMCache, LLMError, ReplayLLMCache, cache_key
from hopgraph.llm.client import LLMClient, LLMRequest, LLMResult, StepUsage, strip_fences

__all__ = [
    "CachedReply",
    "LLMCache",
    "LLMClient",
    "LLMError",
    "LLMRequest",
    "LLMResult",
    "ReplayLLMCache",
    "StepUsage",
    "cache_key",
    "strip_fences",
]
