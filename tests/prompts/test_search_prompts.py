"""The global-search and DRIFT prompts: strict reply models (no extra keys, bounded scores, capped
lists in the JSON schema the server receives) and messages that carry the question and material."""

from __future__ import annotations

import pydantic
import pytest

from hopgraph.prompts import community_rating, drift, global_map, global_reduce

POINT = {"description": "Scrooge changes.", "score": 80, "chunk_ids": [3]}


def test_map_reply_is_strict_and_scores_are_bounded() -> None:
    assert global_map.MapReply.model_validate({"points": [POINT]}).points[0].score == 80
    for bad in ({**POINT, "score": 101}, {**POINT, "score": -1}, {**POINT, "extra": 1}, {"description": "x"}):
        with pytest.raises(pydantic.ValidationError):
            global_map.MapReply.model_validate({"points": [bad]})
    with pytest.raises(pydantic.ValidationError):
        global_map.MapReply.model_validate({"points": [POINT] * (global_map.MAX_POINTS + 1)})


@pytest.mark.parametrize(("model", "lists"), [
    (global_map.MapReply, ["points"]),
    (global_reduce.ReduceReply, ["citations"]),
    (community_rating.RatingReply, ["ratings"]),
    (drift.PrimerReply, ["citations", "followups"]),
    (drift.FollowUpReply, ["citations", "followups"]),
    (drift.FinalReply, ["citations"]),
])
def test_every_list_is_capped_and_no_extra_keys_in_the_schema(model: type[pydantic.BaseModel],
                                                              lists: list[str]) -> None:
    schema = model.model_json_schema()
    assert schema["additionalProperties"] is False and set(schema["required"]) == set(schema["properties"])
    assert all(isinstance(schema["properties"][name]["maxItems"], int) for name in lists)


def test_rating_relevance_is_0_to_10() -> None:
    ok = community_rating.RatingReply.model_validate({"ratings": [{"report": 4, "relevance": 10}]})
    assert ok.ratings[0].report == 4
    with pytest.raises(pydantic.ValidationError):
        community_rating.RatingReply.model_validate({"ratings": [{"report": 4, "relevance": 11}]})


def test_messages_carry_question_and_material() -> None:
    for messages in (global_map.messages("Q?", ["[report 1]\nR"]), global_reduce.messages("Q?", ["[point 1] P"]),
                     community_rating.messages("Q?", ["[report 1] R"]), drift.primer_messages("Q?", ["[report 1]"]),
                     drift.followup_messages("Q?", "F?", {7: "text"}), drift.final_messages("Q?", "D", ["A"])):
        assert [m["role"] for m in messages] == ["system", "user"] and "Q?" in messages[1]["content"]
    assert "[chunk 7]\ntext" in drift.followup_messages("Q?", "F?", {7: "text"})[1]["content"]
