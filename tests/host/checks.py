"""The checks every agent's ``host`` scenario is held to, shared by ``test_host_<agent>.py``.

Each ``check_<name>(outcome, label)`` asserts one thing about the checkpoint of the commit ``label`` (or
about the whole run); the test modules parametrize them, so a run's table counts one check per line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest
from entire_core import views
from harness import Checkpoint, line_count, sha256, transcript_texts
from scenarios import TOKEN_KEYS, Expected, Outcome

PER_COMMIT = ("checkpoint", "prompt", "files", "tokens", "full_jsonl", "transcript", "own_session")
"""The checks made on each commit's checkpoint."""


def expected(outcome: Outcome, label: str) -> Expected:
    return next(e for e in outcome.expected if e.label == label)


def stored(outcome: Outcome, label: str) -> tuple[Expected, Checkpoint]:
    """The expectation of ``label`` and the checkpoint its commit's trailer names."""
    want = expected(outcome, label)
    by_sha = {sha: cid for sha, _, cid in outcome.commits()}
    assert want.sha in by_sha, f"{label}: commit {want.sha} is not on the branch"
    cid = by_sha[want.sha]
    assert cid, f"{label}: commit {want.sha[:10]} has no Entire-Checkpoint trailer"
    points = outcome.checkpoints()
    assert cid in points, f"{label}: trailer names {cid}, which the {outcome.backend} backend does not hold"
    return want, points[cid]


def session_part(outcome: Outcome, label: str) -> tuple[Expected, Checkpoint, Any]:
    """The expectation, the checkpoint and the session of the checkpoint that is ``label``'s session."""
    want, point = stored(outcome, label)
    mine = [s for s in point.sessions if s.metadata.get("session_id") == want.session]
    assert mine, (
        f"{label}: no session {want.session} in {point.id} ({[s.metadata.get('session_id') for s in point.sessions]})"
    )
    return want, point, mine[-1]


def note_what_is_left(outcome: Outcome) -> None:
    """After a run: the processes and files it left (``nothing_left``), whether its kill happened
    (``killed``), and, in the killed run, the killed turn's label as ``absent`` when its commit has no
    checkpoint."""
    world = outcome.world
    outcome.facts["processes_left"] = world.processes_left()
    outcome.facts["files_left"] = world.files_left()
    outcome.facts["killed"] = world.killed()
    outcome.facts["absent"] = set()
    if world.kill is not None:
        want = expected(outcome, world.kill.turn)
        if any(sha == want.sha and not cid for sha, _, cid in outcome.commits()):
            outcome.facts["absent"].add(want.label)


def absent(outcome: Outcome, label: str) -> bool:
    """Whether ``label`` is the killed turn's commit and has no checkpoint: what the host may do with a turn
    whose end it could not finish, as storing it exact is (anything else fails the checks)."""
    return label in outcome.facts.get("absent", ())


def check_checkpoint(outcome: Outcome, label: str) -> None:
    """One checkpoint per commit with agent work, named by the commit's ``Entire-Checkpoint:`` trailer."""
    _, point = stored(outcome, label)
    assert point.metadata.get("checkpoint_id") == point.id
    assert point.sessions, f"{label}: checkpoint {point.id} has no session"
    owners = [cid for sha, _, cid in outcome.commits() if cid == point.id]
    assert len(owners) == 1, f"{label}: checkpoint {point.id} is named by {len(owners)} commits"


def check_prompt(outcome: Outcome, label: str) -> None:
    """``prompt.txt`` is exactly the typed prompts of the turns the checkpoint covers."""
    want, _, part = session_part(outcome, label)
    got = [p for p in part.prompt.split("\n\n---\n\n") if p] if part.prompt else []
    assert got == want.prompts, f"{label}: prompt.txt {part.prompt!r}"


def check_files(outcome: Outcome, label: str) -> None:
    """``files_touched`` is exactly the scripted files."""
    want, point, part = session_part(outcome, label)
    assert sorted(part.metadata.get("files_touched") or []) == sorted(want.files)
    assert sorted(point.metadata.get("files_touched") or []) == sorted(want.files)


def check_tokens(outcome: Outcome, label: str) -> None:
    """``token_usage`` is the scripted usage, with ``subagent_tokens`` where a subagent ran."""
    want, _, part = session_part(outcome, label)
    usage = part.metadata.get("token_usage") or {}
    assert {k: usage.get(k, 0) for k in TOKEN_KEYS} == want.tokens, f"{label}: {usage}"
    sub = usage.get("subagent_tokens")
    if want.subagent_tokens is None:
        assert not sub, f"{label}: subagent_tokens {sub}"
    else:
        assert sub and {k: sub.get(k, 0) for k in TOKEN_KEYS} == want.subagent_tokens, f"{label}: {sub}"


def check_full_jsonl(outcome: Outcome, label: str) -> None:
    """``full.jsonl`` is the ``session_ref`` file's bytes as the host read them, ``content_hash.txt`` their sha256."""
    want, _, part = session_part(outcome, label)
    assert part.content_hash == f"sha256:{sha256(part.full)}"
    at_commit = outcome.facts.get("ref_at", {}).get(label)
    if at_commit is not None:
        assert part.full == at_commit, (
            f"{label}: full.jsonl ({len(part.full)} bytes) != session_ref ({len(at_commit)})"
        )
    else:  # a commit the agent made mid-turn: the file as it stood then; a line the host counted keeps its record
        final = outcome.facts["ref_final"][want.session]
        assert part.full, f"{label}: full.jsonl is empty"
        lines, later = part.full.split(b"\n")[:-1], final.split(b"\n")
        # Re-based since: the lines past both headers.
        body = max(views.head_lines_of(part.full), views.head_lines_of(final))
        assert len(later) > len(lines) and lines[body:] == later[body : len(lines)], (
            f"{label}: full.jsonl's lines from {body} are not the session_ref's"
        )


def check_rebased(outcome: Outcome) -> None:
    """At the smallest view budget, the views were re-based more than once: the headers the checkpoints
    stored and the sessions' final views start their bodies at two lines or more."""
    bodies = {
        (part.metadata.get("session_id"), views.head_lines_of(part.full))
        for point in outcome.checkpoints().values()
        for part in point.sessions
    }
    bodies |= {(session, views.head_lines_of(data)) for session, data in outcome.facts["ref_final"].items()}
    rebased = sorted(body for _, body in bodies if body)
    assert len(rebased) >= 2, f"views re-based at {rebased} only"


def held(
    outcome: Outcome, known: Mapping[str, Mapping[tuple[str, ...], str]], key: tuple[str, ...], check: Any
) -> None:
    """Run ``check()``; a ``key`` that ``known`` lists for this run (``known[outcome.backend]``: the
    small-view run's faults, the killed run's) is a fault found and not fixed yet: it must still fail
    (xfail with its reason), and a pass says to take it off the list."""
    reason = known.get(outcome.backend, {}).get(key)
    if reason is None:
        check()
        return
    try:
        check()
    except (AssertionError, LookupError, StopIteration):
        pytest.xfail(reason)
    pytest.fail(f"{key} passes now in the {outcome.backend} run: take it off the known list ({reason})")


RESUME_REBASED = (
    "a re-based view gives back its snapshot, not the session file byte for byte: the resumed agent "
    "gets the earlier turns as the snapshot restates them, within the budget"
)
COMMITTED_AT_END = (
    "session B is committed only at its end: at this budget its earlier turns no longer fit, so the "
    "view re-based past the start the host stored; their usage is carried in the view's header, but "
    "the text of those turns is gone from the view, and so from the checkpoint's transcript (by design: "
    "the view is bounded)"
)
LOST_TURN_END = (
    "Entire CLI v0.10.3: the host's own 30 s kill of the turn-end hook's parse-hook loses the turn's end "
    "(no TurnEnd, no step, no shadow branch); once the session has ended, the user's commit lists it as an "
    "orphan (ended, no shadow branch, LastCheckpointID cleared at TurnStart) and deletes its state "
    "(strategy/manual_commit_session.go listAllSessionStates, lines 108-121): the killed turn's commit "
    "gets no checkpoint, and the session's next turn starts a new state at transcript line 0, so its "
    "checkpoint has the lost turn's prompt with its own, the tokens of every turn since the session began "
    "and a transcript scope from line 0"
)
SMALL_VIEW_KNOWN: dict[tuple[str, ...], str] = {
    ("B-end", "transcript"): COMMITTED_AT_END,
    ("list_and_explain",): COMMITTED_AT_END,
    ("resume",): RESUME_REBASED,
}
"""What fails in the small-view run (``held``) of a scenario whose session B is committed only at its end,
then resumed: Codex's, Gemini's and Qwen's."""


def check_transcript(outcome: Outcome, label: str) -> None:
    """``transcript.jsonl`` (from ``compact_transcript_start``) holds each covered turn's prompt and reply."""
    want, _, part = session_part(outcome, label)
    start = part.metadata.get("compact_transcript_start")
    assert isinstance(start, int) and start >= 0, f"{label}: compact_transcript_start {start!r}"
    scoped = b"".join(part.transcript.splitlines(keepends=True)[start:])
    users, replies = transcript_texts(scoped)
    prompts = want.prompts if want.transcript_prompts is None else want.transcript_prompts
    assert users == prompts, f"{label}: prompts in transcript.jsonl from line {start}: {users}"
    assert all(r in replies for r in want.replies), f"{label}: replies {replies}, want {want.replies}"
    cts = part.metadata.get("checkpoint_transcript_start", 0)
    assert cts <= line_count(part.full), f"{label}: checkpoint_transcript_start {cts} past the file's lines"


def check_own_session(outcome: Outcome, label: str) -> None:
    """No session's data on another session's commit."""
    want, point = stored(outcome, label)
    others = [
        s.metadata.get("session_id") for s in point.sessions if s.metadata.get("session_id") != want.session
    ]
    assert not others, f"{label}: sessions {others} on {want.session}'s commit"


def check_no_checkpoint_without_agent_work(outcome: Outcome) -> None:
    """Exactly the commits with agent work have a trailer; no checkpoint is left unnamed."""
    labelled = {e.sha for e in outcome.expected if e.prompts and not absent(outcome, e.label)}
    named = {cid for _, _, cid in outcome.commits() if cid}
    for sha, subject, cid in outcome.commits():
        assert bool(cid) == (sha in labelled), f"commit {subject!r}: trailer {cid!r}"
    assert set(outcome.checkpoints()) == named


def check_doctor(outcome: Outcome) -> None:
    """``entire doctor`` reports no stuck session, and no ``entire/*`` shadow branch is left."""
    run = outcome.commands["doctor"]
    assert "No stuck sessions found." in run.stdout + run.stderr, run.stdout + run.stderr
    assert outcome.facts["shadow_branches"] == []


def check_list_and_explain(outcome: Outcome) -> None:
    """``checkpoint list`` names every checkpoint with its session; ``explain`` shows the checkpoint's own turns."""
    listed = json.loads(outcome.commands["list"].stdout)
    points = outcome.checkpoints()
    assert sorted(x["checkpoint_id"] for x in listed) == sorted(points)
    by_sha = {sha: cid for sha, _, cid in outcome.commits()}
    all_prompts = {p for e in outcome.expected for p in e.prompts}
    for want in outcome.expected:
        if not want.prompts or absent(outcome, want.label):
            continue
        cid = by_sha[want.sha]
        entry = next(x for x in listed if x["checkpoint_id"] == cid)
        assert entry["session_id"] == want.session
        text = outcome.explain[cid].stdout
        scope = text.split("Transcript (checkpoint scope)", 1)[-1]
        in_scope = want.prompts if want.transcript_prompts is None else want.transcript_prompts
        for prompt in all_prompts:
            shown = f"[User] {prompt}" in scope
            assert shown == (prompt in in_scope), f"{want.label}: explain's scope and {prompt!r}:\n{text}"


def check_resume(outcome: Outcome) -> None:
    """``entire session resume <branch>`` restores the deleted session file through ``write-session``."""
    run = outcome.commands["resume"]
    assert run.code == 0, run.stdout + run.stderr
    calls = [c["subcommand"] for c in outcome.world.trace_calls()]
    assert "write-session" in calls
    assert outcome.facts["rollout_after"] and outcome.facts["rollout_before"].startswith(b"")
    assert outcome.facts["rollout_after"] == outcome.facts["rollout_before"]


def check_resumed_agent(outcome: Outcome) -> None:
    """The agent resumes the restored session: the scripted server's next request carries earlier turns."""
    assert outcome.commands["R"].code == 0, outcome.commands["R"].stderr[-2000:]
    first = json.dumps(outcome.facts["resumed_requests"][0])
    for prompt in outcome.facts["resumed_history"]:
        assert prompt in first, f"the resumed request does not carry {prompt!r}"


def check_disable(outcome: Outcome) -> None:
    """``entire disable --uninstall --force`` leaves the repository's files and .git/config as before enable."""
    assert outcome.commands["disable"].code == 0, outcome.commands["disable"].stderr
    before, after = outcome.facts["before_enable"], outcome.facts["after_disable"]
    assert after[".git/config"] == before[".git/config"]
    committed = outcome.facts["ls_files"]
    own = tuple(outcome.facts.get("agent_own_files", ()))  # the agent's own files (Aider's history), not ours
    left = {name for name in after if name != ".git/config" and not name.startswith(own or ("\0",))}
    assert left == committed, sorted(left ^ committed)
    for name, data in before.items():
        if name in after and name not in outcome.facts.get("edited", set()):
            assert after[name] == data, name
    assert outcome.facts["hooks_after"] == outcome.facts["hooks_before"]


def check_nothing_left(outcome: Outcome) -> None:
    """No process of the run is left, and no temporary file, view ``.next`` or stray lock
    (``World.processes_left``, ``World.files_left``)."""
    assert outcome.facts["processes_left"] == [], outcome.facts["processes_left"]
    assert outcome.facts["files_left"] == [], outcome.facts["files_left"]


HOST_TIMEOUT_MS = 30_000
"""The host's own deadline for a plugin call (``defaultRunTimeout``, v0.10.3 ``agent/external/external.go``)."""


def slow_hooks(outcome: Outcome) -> list[tuple[str, int]]:
    """``(hook, milliseconds)`` of each agent hook the host's log says took its 30 s deadline or more. The
    host logs a hook's timing when the hook ends, at WARN when it was slow (v0.10.3 ``perf/span.go``):
    such a line says the ``entire`` process lived past the kill of its call and finished its hook."""
    found: list[tuple[str, int]] = []
    for line in outcome.facts.get("host_log", b"").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict) or (entry.get("msg"), entry.get("hook_type")) != ("perf", "agent"):
            continue
        duration = entry.get("duration_ms")
        if isinstance(duration, int) and duration >= HOST_TIMEOUT_MS:
            found.append((str(entry.get("op")), duration))
    return found


def check_killed(outcome: Outcome) -> None:
    """The kill happened as meant: a plugin process reached the kill's point in its turn and stopped there
    (``World.killed``), and the host's own timeout ended it: the ``entire`` process that made the call
    outlived it and finished its hook, 30 s or more after it began (``slow_hooks``), where an agent
    whose hook timeout runs out first kills ``entire`` with it."""
    kill = outcome.world.kill
    assert kill is not None
    assert outcome.facts["killed"], (
        f"no plugin process reached {kill.at} from turn {kill.turn} on: nothing hung"
    )
    assert slow_hooks(outcome), (
        f"no hook of the host ran its 30 s and finished after {kill.at} hung: something killed entire first"
    )
