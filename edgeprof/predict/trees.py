"""Tree ensembles (ai.onnx.ml TreeEnsembleClassifier, TreeEnsembleRegressor and opset 5's TreeEnsemble): their work
as onnxruntime's tree_ensemble_aggregator walks it, and their calibration op for kernels.py's "head" models.

- `tree_work(node)`: (branch nodes visited per row, nodes stored) from the node's attributes. A row walks each tree
  from its root to a leaf, one comparison a branch node; the visits are taken as each tree's mean leaf depth (its
  leaves weighted alike: inputs the run feeds are random). A kernel's FLOPs are rows × visits, and its bytes hold the
  trees' storage (NODE_BYTES a node), which decides whether they stay in the cache. Until round 18 a tree ensemble
  read as 0 FLOPs and its input's bytes: no table priced it (synheart's ExtraTrees of 500 trees, round 17: the
  roofline, −71 %).
- `tree_op(g)`: one TreeEnsembleClassifier or TreeEnsembleRegressor (ai.onnx.ml opset 1, which every onnxruntime
  edgeprof supports loads) of random trees on its own input: 1 to 400 trees of depth up to 2-14, pruned at random as
  fitted trees are, 1 to 256 rows of 4 to 64 features, about 120 000 nodes at most.
Does not own: the graph under construction (kernels._G), the model around it (heads.head).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["TREE_OPS", "NODE_BYTES", "ML_FAMILY", "tree_work", "ml_work", "tree_op"]

TREE_OPS = frozenset({"TreeEnsembleClassifier", "TreeEnsembleRegressor", "TreeEnsemble"})
# onnxruntime's TreeNodeElement (onnxruntime/core/providers/cpu/ml/tree_ensemble_helper.h, tree_ensemble_aggregator.h):
# a feature id, a threshold, a true-branch pointer, flags and the false branch next to it, about 24-32 bytes a node
NODE_BYTES = 32
_MAX_NODES = 120_000
# cost families (graph._FAMILY): the three tree ensembles walk their nodes alike (opset 5's TreeEnsemble takes the
# others' samples); a Scaler, in front of scikit-learn's models, is a Sub and a Mul in one, priced as them
ML_FAMILY = {"TreeEnsembleClassifier": "trees", "TreeEnsembleRegressor": "trees", "TreeEnsemble": "trees",
             "Scaler": "binary"}


def _attrs(node: Any) -> dict[str, Any]:
    from onnx import helper, numpy_helper

    out: dict[str, Any] = {}
    for a in node.attribute:
        out[a.name] = numpy_helper.to_array(a.t) if a.HasField("t") else helper.get_attribute_value(a)
    return out


def _mean_depth(children: dict[Any, tuple[Any, Any]], root: Any) -> float:
    """The mean depth of the leaves under `root` (branch nodes on the path: a lone leaf is 0)."""
    total, leaves, stack = 0, 0, [(root, 0)]
    while stack:
        n, d = stack.pop()
        kids = children.get(n)
        if kids is None:
            total, leaves = total + d, leaves + 1
            continue
        stack += [(kids[0], d + 1), (kids[1], d + 1)]
    return total / leaves if leaves else 0.0


def tree_work(node: Any) -> tuple[float, int] | None:
    """(branch nodes visited per row, nodes stored) of a tree-ensemble node; None for another op or attributes
    this reading does not know."""
    if node.domain != "ai.onnx.ml" or node.op_type not in TREE_OPS:
        return None
    a = _attrs(node)
    try:
        if node.op_type == "TreeEnsemble":  # opset 5: nodes by index; a branch's side is a node or a leaf index
            true_ids, false_ids = list(a["nodes_truenodeids"]), list(a["nodes_falsenodeids"])
            true_leaf = list(a.get("nodes_trueleafs", [0] * len(true_ids)))
            false_leaf = list(a.get("nodes_falseleafs", [0] * len(true_ids)))
            children = {("n", i): (("l", t) if true_leaf[i] else ("n", t), ("l", f) if false_leaf[i] else ("n", f))
                        for i, (t, f) in enumerate(zip(true_ids, false_ids, strict=True))}
            visits = sum(_mean_depth(children, ("n", int(r))) for r in a["tree_roots"])
            return float(visits), len(true_ids) + len(list(a.get("leaf_weights", [])))
        trees, ids = list(a["nodes_treeids"]), list(a["nodes_nodeids"])
        modes = [m.decode() if isinstance(m, bytes) else str(m) for m in a["nodes_modes"]]
        true_ids, false_ids = list(a["nodes_truenodeids"]), list(a["nodes_falsenodeids"])
        children = {(t, n): ((t, tt), (t, ff)) for t, n, m, tt, ff in zip(trees, ids, modes, true_ids, false_ids,
                                                                             strict=True) if m != "LEAF"}
        seen = {(t, n) for t, n in zip(trees, ids, strict=True)}
        reached = {c for kids in children.values() for c in kids}
        roots = [n for n in seen if n not in reached]
        return float(sum(_mean_depth(children, r) for r in roots)), len(ids)
    except (KeyError, ValueError, TypeError):
        return None


def ml_work(node: Any, shapes: dict[str, tuple[int, ...]]) -> tuple[int, float] | None:
    """(FLOPs, bytes held in its attributes) of an ai.onnx.ml node this reading knows (a tree ensemble: rows × visits,
    rounded, and its nodes' storage; a Scaler: two an element), None for another. The input is [rows, features] or
    [features]."""
    trees = tree_work(node)
    if trees is not None and node.input and node.input[0] in shapes:
        x = shapes[node.input[0]]
        return round((x[0] if len(x) == 2 else 1) * trees[0]), float(trees[1] * NODE_BYTES)
    if node.op_type == "Scaler" and node.output and node.output[0] in shapes:
        return 2 * math.prod(shapes[node.output[0]]), 0.0
    return None


def _tree(rng: np.random.Generator, depth: int, budget: int) -> list[tuple[int, int, int]]:
    """A random binary tree as (node id, true id, false id) in id order, -1 for a leaf's sides: a node splits with
    probability 0.85 until `depth`, and not once `budget` nodes are made."""
    nodes: list[list[int]] = [[0, -1, -1]]
    frontier = [(0, 0)]
    while frontier:
        i, d = frontier.pop(0)
        if d < depth and len(nodes) + 2 <= budget and (d == 0 or rng.random() < 0.85):
            t, f = len(nodes), len(nodes) + 1
            nodes += [[t, -1, -1], [f, -1, -1]]
            nodes[i][1:] = [t, f]
            frontier += [(t, d + 1), (f, d + 1)]
    return [(n[0], n[1], n[2]) for n in nodes]


def tree_op(g: Any) -> None:
    """One tree ensemble on a new [rows, features] input of `g` (kernels._G), its outputs the graph's."""
    from onnx import TensorProto, helper

    rng: np.random.Generator = g.rng
    rows = int(rng.choice([1, 1, 4, 16, 64, 256]))
    feats = int(rng.choice([4, 8, 16, 32, 64]))
    n_trees = int(np.clip(np.exp(rng.uniform(0.0, np.log(400.0))), 1, 400))
    depth = int(rng.integers(2, 15))
    budget = max(3, min(2 ** (depth + 1) - 1, _MAX_NODES // n_trees))
    classify = rng.random() < 0.5
    classes = int(rng.choice([2, 3, 5])) if classify else 1
    a: dict[str, list[Any]] = {k: [] for k in ("treeids", "nodeids", "featureids", "modes", "values", "true",
                                               "false", "leaf_tree", "leaf_node", "leaf_class", "leaf_weight")}
    for t in range(n_trees):
        for n, tt, ff in _tree(rng, depth, budget):
            leaf = tt < 0
            a["treeids"].append(t)
            a["nodeids"].append(n)
            a["featureids"].append(0 if leaf else int(rng.integers(feats)))
            a["modes"].append("LEAF" if leaf else "BRANCH_LEQ")
            a["values"].append(0.0 if leaf else float(rng.standard_normal()))
            a["true"].append(max(tt, 0))
            a["false"].append(max(ff, 0))
            if leaf:
                for c in range(classes):
                    a["leaf_tree"].append(t)
                    a["leaf_node"].append(n)
                    a["leaf_class"].append(c)
                    a["leaf_weight"].append(float(rng.uniform(0, 1)))
    x = g.input([rows, feats])
    common: dict[str, Any] = {"nodes_treeids": a["treeids"], "nodes_nodeids": a["nodeids"], "nodes_featureids": a["featureids"],
              "nodes_modes": a["modes"], "nodes_values": a["values"], "nodes_truenodeids": a["true"],
              "nodes_falsenodeids": a["false"]}
    if classify:
        label, probs = g.name("t"), g.name("t")
        g.nodes.append(helper.make_node(
            "TreeEnsembleClassifier", [x], [label, probs], name=g.name("trees_"), domain="ai.onnx.ml",
            classlabels_int64s=list(range(classes)), class_treeids=a["leaf_tree"], class_nodeids=a["leaf_node"],
            class_ids=a["leaf_class"], class_weights=a["leaf_weight"], post_transform="NONE", **common))
        g.outputs.append(helper.make_tensor_value_info(label, TensorProto.INT64, [rows]))
        g.output(probs, [rows, classes])
    else:
        y = g.name("t")
        g.nodes.append(helper.make_node(
            "TreeEnsembleRegressor", [x], [y], name=g.name("trees_"), domain="ai.onnx.ml", n_targets=1,
            target_treeids=a["leaf_tree"], target_nodeids=a["leaf_node"], target_ids=a["leaf_class"],
            target_weights=a["leaf_weight"], aggregate_function="SUM", post_transform="NONE", **common))
        g.output(y, [rows, 1])
