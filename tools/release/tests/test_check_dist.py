"""check_dist.py: a well-formed agent wheel passes; each defect a release must not ship is named."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from artifacts import Wheel, read_artifact
from check_dist import (
    check_agent,
    check_classifiers,
    check_contents,
    check_core,
    check_license,
    check_readme,
    check_urls,
    prune_private,
)

README = """# entire-agent-zed

An Entire CLI external-agent plugin for Zed. It records Zed sessions into git checkpoints: prompts,
the files each turn changed, token usage. This paragraph is long enough to be a real description of
what the plugin does and why a user would want it installed next to the Entire CLI.

## Install

    uv tool install --compile-bytecode entire-agent-zed
    entire enable --agent zed
    entire-agent-zed doctor

## What is captured

Prompts, modified files, token usage and a summary per turn, from Zed's own transcript files. More
words here so that the page has some substance for people who find it on the package index.

## Supported versions and known limits

Zed 1.2 or later. Files changed by shell commands are not attributed; Entire takes them from git.
Sessions that Zed keeps only in memory cannot be resumed.
"""
HEAD = """Summary: Entire CLI external-agent plugin for Zed.
License-Expression: MIT
License-File: LICENSE
Classifier: Development Status :: 3 - Alpha
Classifier: Operating System :: POSIX
Classifier: Programming Language :: Python :: 3
Classifier: Programming Language :: Python :: 3.11
Classifier: Programming Language :: Python :: 3.12
Classifier: Typing :: Typed
Requires-Dist: entire-core>=0.1,<0.2
Requires-Python: >=3.11
Project-URL: Homepage, https://example.org/zed
Project-URL: Issues, https://example.org/zed/issues
Description-Content-Type: text/markdown"""
FILES = {
    "entire_agent_zed/__init__.py": (
        'from entire_core.cli import console_main\n__version__ = "0.1.0"\n'
        'main = console_main("entire_agent_zed.agent:ZedAgent")\n'
    ),
    "entire_agent_zed/__main__.py": "from entire_agent_zed import main\n",
    "entire_agent_zed/agent.py": "class ZedAgent:\n    name = 'zed'\n",
    "entire_agent_zed/py.typed": "",
}
ENTRY_POINTS = """[console_scripts]
entire-agent-zed = entire_agent_zed:main

[entire.agents]
zed = entire_agent_zed.agent:ZedAgent
"""


def agent_wheel(make_wheel: Callable[..., Path], **change: object) -> Wheel:
    """The well-formed agent wheel, with ``head``, ``readme``, ``files``, ``entry_points`` or ``licenses`` replaced."""
    head = str(change.get("head", HEAD))
    readme = str(change.get("readme", README))
    files = change.get("files", FILES)
    licenses = change.get("licenses", {"LICENSE": "MIT License\n\nCopyright ..."})
    path = make_wheel(
        str(change.get("name", "entire-agent-zed")),
        "0.1.0",
        files,
        metadata=f"{head}\n\n{readme}",
        entry_points=change.get("entry_points", ENTRY_POINTS),
        licenses=licenses,
        tag=str(change.get("tag", "py3-none-any")),
    )
    wheel = read_artifact(path)
    assert isinstance(wheel, Wheel)
    return wheel


def all_problems(wheel: Wheel) -> list[str]:
    """What every per-wheel check says about ``wheel``."""
    found = check_readme(wheel, set()) + check_license(wheel) + check_classifiers(wheel)
    return found + check_urls(wheel) + check_contents(wheel) + check_agent(wheel)


def test_a_well_formed_agent_wheel_passes(make_wheel: Callable[..., Path]) -> None:
    assert all_problems(agent_wheel(make_wheel)) == []


DEFECTS: dict[str, tuple[dict[str, object], str]] = {
    "legacy license classifier": (
        {
            "head": HEAD.replace(
                "Typing :: Typed", "Typing :: Typed\nClassifier: License :: OSI Approved :: MIT License"
            )
        },
        "'License :: OSI Approved :: MIT License': License classifiers are deprecated by PEP 639",
    ),
    "no license expression": (
        {"head": HEAD.replace("License-Expression: MIT\n", "")},
        "no License-Expression",
    ),
    "license file not shipped": ({"licenses": {}}, "License-File LICENSE is missing or empty in the wheel"),
    "unknown classifier": (
        {"head": HEAD.replace("Typing :: Typed", "Typing :: Typed\nClassifier: Topic :: Agents")},
        "unknown classifier 'Topic :: Agents'",
    ),
    "python classifier below requires-python": (
        {"head": HEAD.replace("Python :: 3.11", "Python :: 3.10")},
        "classifier 'Programming Language :: Python :: 3.10' contradicts Requires-Python >=3.11",
    ),
    "typed without py.typed": (
        {"files": {k: v for k, v in FILES.items() if not k.endswith("py.typed")}},
        "'Typing :: Typed' and a py.typed file must come together",
    ),
    "plain http url": (
        {"head": HEAD.replace("https://example.org/zed/issues", "http://x")},
        "Project-URL Issues is not https",
    ),
    "thin readme": (
        {"readme": "# entire-agent-zed\n\nA plugin.\n"},
        "the README is too thin for an index page",
    ),
    "readme without doctor": (
        {"readme": README.replace("doctor", "check")},
        "the README says nothing about doctor",
    ),
    "readme not markdown": (
        {"head": HEAD.replace("text/markdown", "text/x-rst")},
        "Description-Content-Type is not text/markdown",
    ),
    "built-in agent name": (
        {"entry_points": ENTRY_POINTS.replace("zed = ", "codex = ")},
        "'codex' is a built-in agent's name; the CLI would never run this plugin",
    ),
    "no console script": (
        {"entry_points": ENTRY_POINTS.replace("entire-agent-zed = ", "zed-cli = ")},
        "no console script entire-agent-zed",
    ),
    "entry point names nothing": (
        {"entry_points": ENTRY_POINTS.replace(":ZedAgent", ":Missing")},
        "entire.agents entry point zed = entire_agent_zed.agent:Missing names no class in the wheel",
    ),
    "open core range": (
        {"head": HEAD.replace("entire-core>=0.1,<0.2", "entire-core>=0.1")},
        "needs exactly one requirement entire-core>=0.1,<0.2",
    ),
    "tests shipped": ({"files": {**FILES, "tests/test_zed.py": ""}}, "ships tests/test_zed.py"),
    "bytecode shipped": (
        {"files": {**FILES, "entire_agent_zed/__pycache__/agent.cpython-311.pyc": ""}},
        "ships entire_agent_zed/__pycache__/agent.cpython-311.pyc",
    ),
    "__version__ skew": (
        {"files": {**FILES, "entire_agent_zed/__init__.py": '__version__ = "0.0.9"\n'}},
        "entire_agent_zed/__init__.py __version__ is '0.0.9', metadata says 0.1.0",
    ),
    "platform wheel": ({"tag": "cp311-cp311-linux_x86_64"}, "not a pure py3-none-any wheel"),
}


@pytest.mark.parametrize("defect", list(DEFECTS))
def test_each_defect_is_named(make_wheel: Callable[..., Path], defect: str) -> None:
    change, expected = DEFECTS[defect]
    found = all_problems(agent_wheel(make_wheel, **change))
    assert any(expected in problem for problem in found), found


def test_a_thin_readme_can_be_waived_loudly(
    make_wheel: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    wheel = agent_wheel(
        make_wheel,
        readme="# entire-agent-zed\n\nA plugin: uv tool install, entire enable, doctor, captured, limits, versions.\n",
    )
    assert check_readme(wheel, {"entire-agent-zed"}) == []
    assert "WAIVED (--thin-readme-ok entire-agent-zed)" in capsys.readouterr().out


CORE_HEAD = """Summary: core
Requires-Dist: pydantic>=2.7,<3
Requires-Dist: tomlkit>=0.13,<1 ; extra == 'toml'
Provides-Extra: toml"""
CORE_FILES = {
    "entire_core/__init__.py": '__version__ = "0.1.0"\n',
    "entire_core/cli.py": '_T = "entire_core.protocol:Model"\n',
    "entire_core/protocol.py": "import pydantic\n",
    "entire_core/config/toml.py": "def edit():\n    import tomlkit\n",
    "entire_core/testing/contract.py": "import pytest\n",
}


def core_wheel(make_wheel: Callable[..., Path], head: str) -> Wheel:
    """A fake entire-core wheel with the given METADATA head."""
    wheel = read_artifact(make_wheel("entire-core", "0.1.0", CORE_FILES, metadata=head))
    assert isinstance(wheel, Wheel)
    return wheel


def test_core_requires_pydantic_and_only_offers_tomlkit_as_an_extra(make_wheel: Callable[..., Path]) -> None:
    assert check_core(core_wheel(make_wheel, CORE_HEAD)) == []


def test_core_must_not_pull_tomlkit_unconditionally(make_wheel: Callable[..., Path]) -> None:
    head = CORE_HEAD.replace("tomlkit>=0.13,<1 ; extra == 'toml'", "tomlkit>=0.13,<1")
    assert check_core(core_wheel(make_wheel, head)) == [
        "entire_core-0.1.0-py3-none-any.whl: requires tomlkit unconditionally, but only entire_core.config.toml "
        "(off the dispatcher's path) imports it: make it an extra"
    ]


def test_core_must_not_hide_the_dispatchers_needs_in_an_extra(make_wheel: Callable[..., Path]) -> None:
    head = CORE_HEAD.replace("pydantic>=2.7,<3", "pydantic>=2.7,<3 ; extra == 'toml'")
    assert check_core(core_wheel(make_wheel, head)) == [
        "entire_core-0.1.0-py3-none-any.whl: entire_core.protocol imports pydantic on every call's path, so it "
        "must be an unconditional requirement"
    ]


def test_private_artifacts_are_pruned_or_refused(make_wheel: Callable[..., Path]) -> None:
    private = read_artifact(
        make_wheel("entire-sim", "0.1.0", {}, metadata="Classifier: Private :: Do Not Upload")
    )
    public = agent_wheel(make_wheel)
    kept, problems = prune_private([private, public], prune=False)
    assert kept == [public]
    assert problems == ["entire_sim-0.1.0-py3-none-any.whl: Private :: Do Not Upload, must not be in dist/"]
    assert private.path.exists()
    kept, problems = prune_private([private, public], prune=True)
    assert (kept, problems) == ([public], [])
    assert not private.path.exists()
