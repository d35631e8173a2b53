"""Claim judges: the README's lexical scorer, and the LLM judge against a real HTTP server on 127.0.0.1
(cached, counted, resumable after a failure)."""

from __future__ import annotations

import pytest
from scripted_chat import scripted_chat

from hopgraph.errors import InputError
from hopgraph.eval.judges import (
    JUDGE_STEP,
    ClaimsToJudge,
    LexicalJudge,
    LLMJudge,
    check_judge,
    claim_tokens,
    lexically_found,
)
from hopgraph.llm import LLMClient, LLMError, ReplayLLMCache
from hopgraph.prompts import attribution

# --- lexical ---------------------------------------------------------------------------------------


def test_claim_tokens_normalise_case_quotes_compatibility_forms_and_underscores():
    assert claim_tokens("Raegen\u2019s ﬁne HOUSE_2") == {"raegen", "s", "fine", "house", "2"}


def test_a_claim_is_found_with_four_fifths_of_its_words_in_one_chunk():
    claim = claim_tokens("Raegen hides in the garret")  # 5 distinct tokens: 4 are 80 %
    assert lexically_found(claim, [claim_tokens("In the garret Raegen waited.")])
    assert not lexically_found(claim, [claim_tokens("Raegen waited in silence.")])  # 3 of 5
    # Four of five words, but spread over two chunks: not found.
    assert not lexically_found(claim, [claim_tokens("Raegen in"), claim_tokens("the garret")])
    assert not lexically_found(frozenset(), [claim_tokens("anything")])


def test_the_lexical_judge_gives_a_verdict_per_claim():
    items = [ClaimsToJudge(("Raegen hides in the garret.", "The ship sails at dawn."),
                           ("Raegen hides in the garret all day.", "Nothing about ships.")),
             ClaimsToJudge(("Raegen hides in the garret.",), ())]
    assert LexicalJudge().judge(items) == [[True, False], [False]]


def test_check_judge_names_the_judges():
    assert check_judge("llm") == "llm"
    with pytest.raises(InputError, match="unknown judge 'human'; use lexical or llm"):
        check_judge("human")


# --- the LLM judge ---------------------------------------------------------------------------------


def _verdict_by_claim(body):
    """A scripted judge: a claim is attributable when its last word occurs in the passages."""
    user = body["messages"][-1]["content"]
    passages, claim = user.split("\n\nClaim: ")
    return 200, {"attributable": claim.rstrip(".").split()[-1] in passages}


ITEMS = [ClaimsToJudge(("Raegen hides in the garret.", "The ship sails at dawn."), ("Raegen sat in the garret.",)),
         ClaimsToJudge(("Case owns the mill.",), ("The mill burned.", "Case wept.")),
         ClaimsToJudge(("Nobody retrieved anything.",), ())]


def test_the_llm_judge_asks_once_per_claim_and_counts_its_calls():
    with scripted_chat(_verdict_by_claim) as chat, LLMClient(chat.url, "judge-model", cache=ReplayLLMCache(
            strict=False)) as client:
        verdicts = LLMJudge(client).judge(ITEMS)
        bodies = chat.bodies
    assert verdicts == [[True, False], [True], [False]]
    assert len(bodies) == 3  # the question with no passages costs no call
    assert bodies[0]["messages"][0]["content"] == attribution.SYSTEM
    case = next(b["messages"][1]["content"] for b in bodies if "Case owns" in b["messages"][1]["content"])
    assert case == "Passages:\n[1] The mill burned.\n\n[2] Case wept.\n\nClaim: Case owns the mill."
    usage = client.usage[JUDGE_STEP]
    assert (usage.calls, usage.cached, usage.tokens_in) == (3, 0, 300)


def test_a_failed_run_says_how_many_failed_and_resumes_from_the_cache():
    cache = ReplayLLMCache(strict=False)
    fail_on = "The ship sails at dawn."

    def flaky(body):
        if fail_on in body["messages"][-1]["content"]:
            return 400, "bad request"  # not retried
        return _verdict_by_claim(body)

    failed = r"1 of 3 claim judgements failed .*the 2 received are cached: run the same command again to resume"
    with (scripted_chat(flaky) as chat, LLMClient(chat.url, "judge-model", cache=cache, max_retries=0) as client,
          pytest.raises(LLMError, match=failed)):
        LLMJudge(client).judge(ITEMS)
    assert len(cache) == 2
    with scripted_chat(_verdict_by_claim) as chat, LLMClient(chat.url, "judge-model", cache=cache) as client:
        assert LLMJudge(client).judge(ITEMS) == [[True, False], [True], [False]]
        resumed = [b["messages"][-1]["content"] for b in chat.bodies]
    assert len(resumed) == 1 and resumed[0].endswith(f"Claim: {fail_on}")  # only the missing verdict
    assert client.usage[JUDGE_STEP].cached == 2
