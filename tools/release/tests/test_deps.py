"""deps.py: what our code imports, and what an installed environment carries beyond that."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import deps
import pytest
from artifacts import Wheel, read_artifact
from deps import ImportGraph, Installed, imports_of, judge

CORE_FILES = {
    "entire_core/__init__.py": '__version__ = "0.1.0"\n',
    "entire_core/cli.py": (
        "import os\n"
        "from entire_core.errors import AgentError\n"
        '_T = "entire_core.commands.transcript:"\n'
        "def run():\n"
        "    __import__(_T[:-1])\n"
    ),
    "entire_core/errors.py": "class AgentError(Exception): ...\n",
    "entire_core/commands/__init__.py": "",
    "entire_core/commands/transcript.py": "def handle():\n    from entire_core import protocol\n",
    "entire_core/protocol.py": "from pydantic import BaseModel\n",
    "entire_core/config/__init__.py": '"""Nothing imported here; ``config.toml`` is a file name."""\n',
    "entire_core/config/toml.py": "def edit():\n    import tomlkit\n",
    "entire_core/testing/contract.py": "import pytest\n",
}


def installed(*dists: tuple[str, str, list[str]]) -> dict[str, Installed]:
    """An environment's distributions: ``(name, version, requires)``."""
    return {name: Installed(name, version, requires) for name, version, requires in dists}


PROVIDERS = {
    "entire_core": ["entire-core"],
    "entire_agent_zed": ["entire-agent-zed"],
    "pydantic": ["pydantic"],
    "pydantic_core": ["pydantic_core"],
    "tomlkit": ["tomlkit"],
    "pip": ["pip"],
}
BASE = (
    ("entire-core", "0.1.0", ["pydantic>=2", "tomlkit ; extra == 'toml'"]),
    ("pydantic", "2.14.0", ["pydantic-core==2.50", "email-validator>=2 ; extra == 'email'"]),
    ("pydantic-core", "2.50", []),
    ("pip", "23.2", []),
)


def wheels(make_wheel: Callable[..., Path], agent_files: dict[str, str]) -> tuple[Wheel, Wheel]:
    """The fake core wheel and an agent wheel made of ``agent_files``."""
    core = read_artifact(make_wheel("entire-core", "0.1.0", CORE_FILES))
    agent = read_artifact(make_wheel("entire-agent-zed", "0.1.0", agent_files))
    assert isinstance(core, Wheel) and isinstance(agent, Wheel)
    return core, agent


def test_imports_skip_type_checking_and_resolve_relative_imports() -> None:
    source = (
        "from __future__ import annotations\n"
        "TYPE_CHECKING = False\n"
        "if TYPE_CHECKING:\n"
        "    import tomlkit\n"
        "else:\n"
        "    import json\n"
        "from . import hooks\n"
        "from ..core import cli as c\n"
        "def f():\n"
        "    import yaml.constructor\n"
        'TARGET = "pkg.doctor:run"\n'
        'FILE = "hooks.json"\n'
    )
    names, spelled = imports_of(source, "pkg.sub.agent", is_package=False)
    assert names == {
        "__future__",
        "__future__.annotations",
        "json",
        "pkg.sub",
        "pkg.sub.hooks",
        "pkg.core",
        "pkg.core.cli",
        "yaml.constructor",
    }
    assert spelled == {"pkg.doctor", "hooks.json"}  # the graph keeps only names of our own modules


def test_an_agent_that_never_edits_toml_must_not_carry_tomlkit(make_wheel: Callable[..., Path]) -> None:
    core, agent = wheels(
        make_wheel,
        {
            "entire_agent_zed/__init__.py": "",
            "entire_agent_zed/__main__.py": "from entire_core.cli import run\n",
            "entire_agent_zed/agent.py": "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    import tomlkit\n",
        },
    )
    graph = ImportGraph([core, agent])
    reach = graph.reach(graph.modules_of("entire_agent_zed"))
    assert "entire_core.protocol" in reach.modules  # through the dispatcher's string target
    assert "entire_core.config.toml" not in reach.modules
    env = installed(*BASE, ("entire-agent-zed", "0.1.0", ["entire-core[toml]"]), ("tomlkit", "0.13.2", []))
    verdict = judge(reach, graph.owner, env, PROVIDERS)
    assert verdict.problems == [
        "tomlkit 0.13.2 is installed but nothing reached imports it (pulled in by entire-core[toml])"
    ]
    assert set(verdict.needed) == {"entire-agent-zed", "entire-core", "pydantic", "pydantic-core"}
    assert verdict.needed["pydantic-core"] == "required by pydantic"


def test_an_agent_that_edits_toml_needs_it(make_wheel: Callable[..., Path]) -> None:
    core, agent = wheels(
        make_wheel,
        {
            "entire_agent_zed/__init__.py": "",
            "entire_agent_zed/__main__.py": "from entire_core.cli import run\n",
            "entire_agent_zed/trust.py": "def trust():\n    from entire_core.config.toml import edit\n",
        },
    )
    graph = ImportGraph([core, agent])
    reach = graph.reach(graph.modules_of("entire_agent_zed"))
    env = installed(*BASE, ("entire-agent-zed", "0.1.0", ["entire-core[toml]"]), ("tomlkit", "0.13.2", []))
    verdict = judge(reach, graph.owner, env, PROVIDERS)
    assert verdict.problems == []
    assert verdict.needed["tomlkit"] == "entire_core.config.toml imports tomlkit"


def test_an_import_nothing_installed_provides_is_reported(make_wheel: Callable[..., Path]) -> None:
    core, agent = wheels(
        make_wheel,
        {
            "entire_agent_zed/__init__.py": "",
            "entire_agent_zed/__main__.py": "from entire_core.cli import run\n",
            "entire_agent_zed/hooks.py": "def load():\n    import yaml\n",
            "entire_agent_zed/kit.py": "from entire_core.testing import contract\n",
        },
    )
    graph = ImportGraph([core, agent])
    reach = graph.reach(graph.modules_of("entire_agent_zed"))
    env = installed(*BASE, ("entire-agent-zed", "0.1.0", ["entire-core"]))
    verdict = judge(reach, graph.owner, env, PROVIDERS)
    assert verdict.problems == [
        "entire_core.testing.contract imports pytest, but no installed distribution provides it",
        "entire_agent_zed.hooks imports yaml, but no installed distribution provides it",
    ]


def test_a_script_for_another_interpreter_may_import_only_what_that_program_provides(
    make_wheel: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(deps.RUN_ELSEWHERE, "entire_agent_zed.boot", ("Zed", frozenset({"zed"})))
    core, agent = wheels(
        make_wheel,
        {
            "entire_agent_zed/__init__.py": "",
            "entire_agent_zed/__main__.py": "from entire_core.cli import run\n",
            "entire_agent_zed/boot.py": (
                "import json\n"
                "def main():\n"
                "    from zed.main import main\n"
                "    import yaml\n"
                "    from entire_agent_zed import hooks\n"
            ),
        },
    )
    graph = ImportGraph([core, agent])
    reach = graph.reach(graph.modules_of("entire_agent_zed"))
    assert "zed" not in reach.external  # Zed's environment provides it; ours need not
    verdict = judge(
        reach, graph.owner, installed(*BASE, ("entire-agent-zed", "0.1.0", ["entire-core"])), PROVIDERS
    )
    assert verdict.problems == [
        "entire_agent_zed.boot runs in Zed's interpreter, which cannot import entire_agent_zed",
        "entire_agent_zed.boot runs in Zed's interpreter, which cannot import yaml",
    ]
