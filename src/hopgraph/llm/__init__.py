"""LLM access: an OpenAI-compatible chat client with retries and typed replies, and reply caches."""

from hopgraph.llm.cache import (
    CachedReply,
    LLMCache,
    LLMError,
    RecordingCache,
    ReplayLLMCache,
    cache_key,
    recorded_model,
)
from hopgraph.llm.client import LLMClient, LLMRequest, LLMResult, StepUsage, usage_since
from hopgraph.llm.replies import strip_fences

__all__ = [
    "CachedReply",
    "LLMCache",
    "LLMClient",
    "LLMError",
    "LLMRequest",
    "LLMResult",
    "RecordingCache",
    "ReplayLLMCache",
    "StepUsage",
    "cache_key",
    "recorded_model",
    "strip_fences",
    "usage_since",
]
