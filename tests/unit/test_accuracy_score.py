"""Scoring an accuracy pass (edgeprof/accuracy.score) from the agent's raw per-sample reply, and the agent's own
per-sample reductions (edgeprof_agent/accuracy.py): top-k order, non-finite outputs, errors."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from edgeprof.evaluation.accuracy import AccuracyData, score
from edgeprof_agent import accuracy as agent_acc
from edgeprof_agent.messages import AccuracyReply, OutputErrors


def data(labels: list[int] | None, expected: tuple[tuple[int, str], ...] = ()) -> AccuracyData:
    n = len(labels) if labels is not None else 3
    return AccuracyData(given="v.npz", sha256="ab" * 32, samples=n, inputs=("x",), per_inference=1, stacked=True,
                        labels=None if labels is None else np.array(labels), label_output=(0, "logits")
                        if labels is not None else None, expected=expected, push_path="p", push_sha256="cd")


def test_top1_top5_and_ranks_from_the_agents_top_k() -> None:
    reply = AccuracyReply(samples=4, inferences=4, classes=10, topk=[[3, 1, 2, 0, 9], [5, 3, 0, 1, 2],
                                                                     [7, 8, 9, 0, 1], []], nonfinite=1)
    acc, why = score(data([3, 3, 4, 2]), reply)
    assert why is None and acc is not None
    assert acc.label_rank == [0, 1, None, None] and acc.predicted == [3, 5, 7, None]
    assert acc.top1 == pytest.approx(25.0) and acc.top5 == pytest.approx(50.0)  # a NaN output is wrong
    assert acc.nonfinite == 1 and acc.output == "logits" and acc.classes == 10


def test_top5_needs_five_classes_and_labels_must_be_classes() -> None:
    acc, _ = score(data([1, 0]), AccuracyReply(samples=2, classes=3, topk=[[1, 0, 2], [1, 2, 0]]))
    assert acc is not None and acc.top1 == 50.0 and acc.top5 is None
    acc, why = score(data([1, 3]), AccuracyReply(samples=2, classes=3, topk=[[1, 0, 2], [1, 2, 0]]))
    assert acc is None and why is not None and "label 3 is not a class of output 'logits'" in why


def test_an_agent_error_or_a_short_pass_is_no_accuracy() -> None:
    assert score(data([1]), AccuracyReply(error="boom"))[1] == "the accuracy pass stopped: boom"
    assert "scored 1 of 2" in str(score(data([1, 2]), AccuracyReply(samples=1, classes=3, topk=[[1, 0, 2]]))[1])


def test_errors_aggregate_over_finite_samples() -> None:
    reply = AccuracyReply(samples=3, errors=[OutputErrors(output=1, max_abs=[0.5, None, 0.1],
                                                          mean_abs=[0.2, None, 0.1], mse=[0.04, None, 0.01],
                                                          cosine=[0.9, None, 1.0])], nonfinite=1)
    acc, _ = score(data(None, ((1, "boxes"),)), reply)
    assert acc is not None and acc.top1 is None
    (e,) = acc.errors
    assert e.output == "boxes" and e.samples == 2 and e.max_abs_error == 0.5
    assert e.mean_abs_error == pytest.approx(0.15) and e.rmse == pytest.approx(math.sqrt(0.025))
    assert e.cosine_similarity == pytest.approx(0.95) and e.per_sample_mean_abs == [0.2, None, 0.1]


def test_agent_top_k_is_stable_on_ties_and_refuses_non_finite_values() -> None:
    assert agent_acc._topk(np.array([1.0, 3.0, 3.0, 0.0]), 3) == [1, 2, 0]
    assert agent_acc._topk(np.array([1.0, np.nan]), 2) is None
    assert agent_acc._errors(np.zeros(3), np.zeros(3)) == (0.0, 0.0, 0.0, 1.0)
    mx, mean, mse, cos = agent_acc._errors(np.array([1.0, 2.0]), np.array([1.0, 0.0]))
    assert (mx, mean, mse) == (2.0, 1.0, 2.0) and cos == pytest.approx(1 / math.sqrt(5))
    assert agent_acc._errors(np.array([np.inf]), np.array([1.0])) is None


def test_compare_counts_half_a_point_of_top1_and_only_on_the_same_data() -> None:

    from report_samples import make_result

    from edgeprof.analysis.compare import compare_results
    from edgeprof.records import Accuracy

    base = make_result("orin-nano", "mobilenet_v2")
    assert base.accuracy is not None

    def with_top1(top1: float, sha: str | None = None) -> object:
        r = make_result("orin-nano", "mobilenet_v2", seed=1)
        acc = base.accuracy
        assert isinstance(acc, Accuracy)
        return dataclasses.replace(r, accuracy=dataclasses.replace(acc, top1=top1, sha256=sha or acc.sha256))

    def verdict(new: object) -> str:
        (d,) = [d for d in compare_results(base, new) if d.metric.name == "top1"]  # type: ignore[arg-type]
        return d.verdict + " " + d.note

    assert base.accuracy.top1 == pytest.approx(72.0)
    assert verdict(with_top1(71.6)).startswith("unchanged")  # 0.4 points: two samples of 500
    assert verdict(with_top1(71.4)).startswith("regressed")
    assert verdict(with_top1(73.0)).startswith("improved")
    assert verdict(with_top1(60.0, "ff" * 32)).startswith("n/a scored on different data")
