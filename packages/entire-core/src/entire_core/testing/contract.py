"""The contract kit: standard tests every agent package runs by subclassing ``AgentContract``.

    class TestCodexContract(AgentContract):
        agent_cls = CodexAgent
        transcript_cases = [TranscriptCase(...)]
        hook_cases = [HookCase(...)]

Every call goes through the real dispatcher (``entire_core.cli.run``) in a sandbox with its own repo
root and home, and every JSON answer is validated against the pydantic wire models in strict mode,
so the fast pydantic-free paths can never drift from the wire definition. Set ``script`` to the path
of an installed console script to run the same tests black-box, one process per call.

A subclass may skip a standard test only by naming it in ``skip_reasons`` with a reason; overriding a
standard test method, of any section, is an error (``test_no_overridden_standard_tests``). Requires pytest.

``AgentContract`` combines one mixin per section, each in a module of its own on ``ContractBase``
(``contract_base``: the settings an agent's class sets, its hooks, the fixtures): ``contract_info``,
``contract_sessions``, ``contract_transcripts``, ``contract_doctor``, ``contract_hooks``,
``contract_delivery``, ``contract_views``, ``contract_analyzer`` and ``contract_reading``. The kit's
data is in ``cases`` (``TranscriptCase``, ``HookCase``, ``DeliveryCase``, ``UsageCase``, hostile ids,
tricky config files), calling and checking answers in ``checks`` (``Env``), and the support window's
tests in ``window`` (``SupportWindowContract``).
"""

from __future__ import annotations

from entire_core.testing.contract_analyzer import AnalyzerContract
from entire_core.testing.contract_delivery import DeliveryContract
from entire_core.testing.contract_doctor import DoctorContract
from entire_core.testing.contract_hooks import HooksContract
from entire_core.testing.contract_info import InfoContract
from entire_core.testing.contract_reading import ReadingContract
from entire_core.testing.contract_sessions import SessionsContract
from entire_core.testing.contract_transcripts import TranscriptsContract
from entire_core.testing.contract_views import ViewsContract

__all__ = [
    "AgentContract",
    "AnalyzerContract",
    "DeliveryContract",
    "DoctorContract",
    "HooksContract",
    "InfoContract",
    "ReadingContract",
    "SessionsContract",
    "TranscriptsContract",
    "ViewsContract",
]


class AgentContract(
    InfoContract,
    SessionsContract,
    TranscriptsContract,
    DoctorContract,
    HooksContract,
    DeliveryContract,
    ViewsContract,
    AnalyzerContract,
    ReadingContract,
):
    """Standard tests for one agent class. Subclass it in a ``test_*.py`` module."""

    # -- the kit guards itself -------------------------------------------------------------------------

    def test_no_overridden_standard_tests(self) -> None:
        kit = AgentContract.__mro__  # this class, every section's mixin, ContractBase
        standard = {n for klass in kit for n in vars(klass) if n.startswith("test_")}
        for klass in type(self).__mro__:
            if klass in kit:
                break
            overridden = standard & set(vars(klass))
            assert not overridden, (
                f"{klass.__name__} overrides standard tests {sorted(overridden)}; use skip_reasons"
            )
        unknown = set(self.skip_reasons) - standard
        assert not unknown, f"skip_reasons names unknown tests: {sorted(unknown)}"
        assert all(r.strip() for r in self.skip_reasons.values()), "every skip needs a reason"
