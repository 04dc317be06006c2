"""The aarch64 root recipes (tests/lanes/arm_recipes.py) are consistent with the stack profiles, their cpuinfo files
and the agent's CPU fact; the recipe hash keys what decides a root's contents (the lane itself: tests/arm/)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from arm_recipes import (
    ROOT_BY_NAME,
    ROOTS,
    VENVS_BY_STACK,
    aarch64_platforms,
    recipe_hash,
    runtime_dist,
)
from stack_profiles import PROFILE_BY_NAME

from edgeprof_agent.environment import _arm_cores

ARM = Path(__file__).resolve().parents[1] / "data" / "arm"


def test_every_venv_pins_what_it_expects_and_names_a_stack_profile() -> None:
    names = [v.name for r in ROOTS for v in r.venvs]
    assert len(names) == len(set(names)) and len(ROOT_BY_NAME) == len(ROOTS)
    for root in ROOTS:
        assert root.python.startswith(root.python_tag[0] + "." + root.python_tag[1:] + ".")
        for venv in root.venvs:
            pins = dict(r.split("==") for r in venv.requirements)
            expected = dict(venv.expected)
            assert {k: v for k, v in expected.items() if k != "numpy" or "numpy" in pins} == pins, venv.name
            assert expected["numpy"] == pins.get("numpy", root.numpy)  # Debian's numpy unless pinned
            assert venv.stack in PROFILE_BY_NAME, venv.name
            for runtime, dist in venv.runtimes:
                assert runtime in PROFILE_BY_NAME[venv.stack].runtimes or venv.stack == "rpi-bookworm"
                assert runtime_dist(venv, runtime) == dist and dist in expected
            if "ai-edge-litert" in expected:  # the agent imports it first: tflite measures with it
                assert dict(venv.runtimes).get("tflite") == "ai-edge-litert"
    assert sorted(VENVS_BY_STACK) == ["jetpack-4.6", "jetpack-5.1", "jetpack-6", "rpi-bookworm"]


def test_each_root_s_cpuinfo_is_an_arm_one_the_agent_names() -> None:
    for root in ROOTS:
        text = (ARM / root.cpuinfo).read_text()
        assert " + ".join(_arm_cores(text)) == root.cpu
        assert sum(line.startswith("processor\t:") for line in text.splitlines()) == root.cores_in_cpuinfo
        assert "model name" not in text  # what an arm64 kernel writes: the CPU is named by its MIDR fields


def test_platform_tags_list_every_manylinux_up_to_the_root_s_glibc() -> None:
    tags = aarch64_platforms((2, 31))
    assert tags[0] == "manylinux2014_aarch64" and tags[1] == "manylinux_2_17_aarch64"
    assert tags[-1] == "manylinux_2_31_aarch64" and len(tags) == 1 + 31 - 17 + 1


def test_the_recipe_hash_keys_the_contents_not_the_run_time_settings() -> None:
    pi = ROOT_BY_NAME["pi-bookworm-arm64"]
    assert recipe_hash(pi) == recipe_hash(replace(pi))
    assert len({recipe_hash(r) for r in ROOTS}) == len(ROOTS)
    venv = replace(pi.venvs[0], requirements=("tflite-runtime==2.14.0",))
    assert recipe_hash(replace(pi, venvs=(venv,))) != recipe_hash(pi)  # a changed pin is a new root
    assert recipe_hash(replace(pi, suite="trixie")) != recipe_hash(pi)
    # bind-mounted or set when the root runs, not part of its archive
    assert recipe_hash(replace(pi, cpuinfo="other", qemu_cpu="max", cpu="x")) == recipe_hash(pi)
