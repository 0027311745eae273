"""Sabotage for ``make faults --pythonpath``: a repository has one view per agent, not one per session
(``View.for_session`` forgets the session id): two sessions in one repository write each other's view
(case sessions-one-repo)."""

from entire_core.views import view

_for_session = view.View.for_session.__func__  # type: ignore[attr-defined]
view.View.for_session = classmethod(
    lambda cls, agent, fmt, session_id: _for_session(cls, agent, fmt, "one-view")
)  # type: ignore[method-assign]
