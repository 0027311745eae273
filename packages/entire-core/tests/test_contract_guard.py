"""The contract kit's guard (``test_no_overridden_standard_tests``) sees the standard tests of every section."""

from __future__ import annotations

import pytest
from entire_core.testing.contract import AgentContract
from entire_core.testing.contract_base import ContractBase
from entire_core.testing.sample_agent import SampleAgent

# Each class of the kit that holds standard tests: AgentContract (the guard) and every section's mixin.
SECTIONS = [k for k in AgentContract.__mro__ if any(n.startswith("test_") for n in vars(k))]
MIXINS = SECTIONS[1:]


def _first_test(section: type) -> str:
    return next(n for n in vars(section) if n.startswith("test_"))


def _guard(klass: type[AgentContract]) -> None:
    klass().test_no_overridden_standard_tests()


def test_every_section_is_a_mixin_of_agent_contract() -> None:
    assert [k.__name__ for k in SECTIONS] == [
        "AgentContract",
        "InfoContract",
        "SessionsContract",
        "TranscriptsContract",
        "DoctorContract",
        "HooksContract",
        "DeliveryContract",
        "ViewsContract",
        "AnalyzerContract",
        "ReadingContract",
    ]
    assert all(issubclass(k, ContractBase) for k in SECTIONS)


@pytest.mark.parametrize("section", MIXINS, ids=lambda k: k.__name__)
def test_overriding_a_standard_test_of_any_section_fails(section: type) -> None:
    name = _first_test(section)
    overrider = type("Overrider", (AgentContract,), {"agent_cls": SampleAgent, name: lambda self: None})
    with pytest.raises(AssertionError, match=f"Overrider overrides standard tests \\['{name}'\\]"):
        _guard(overrider)


@pytest.mark.parametrize("section", MIXINS, ids=lambda k: k.__name__)
def test_an_override_in_a_mixin_before_the_kit_fails_too(section: type) -> None:
    name = _first_test(section)
    mine = type("Mine", (), {name: lambda self: None})
    overrider = type("Overrider", (mine, AgentContract), {"agent_cls": SampleAgent})
    with pytest.raises(AssertionError, match=f"Mine overrides standard tests \\['{name}'\\]"):
        _guard(overrider)


def test_skips_of_every_section_are_known_and_an_unknown_one_is_not() -> None:
    skips = {_first_test(section): "a reason" for section in MIXINS}
    _guard(type("Skipper", (AgentContract,), {"agent_cls": SampleAgent, "skip_reasons": skips}))
    unknown = {**skips, "test_no_such_test": "a reason"}
    with pytest.raises(AssertionError, match="unknown tests: \\['test_no_such_test'\\]"):
        _guard(type("Skipper", (AgentContract,), {"agent_cls": SampleAgent, "skip_reasons": unknown}))
    empty = {_first_test(MIXINS[-1]): " "}
    with pytest.raises(AssertionError, match="every skip needs a reason"):
        _guard(type("Skipper", (AgentContract,), {"agent_cls": SampleAgent, "skip_reasons": empty}))


def test_a_subclass_adding_its_own_tests_passes() -> None:
    _guard(type("Adder", (AgentContract,), {"agent_cls": SampleAgent, "test_my_own": lambda self: None}))
