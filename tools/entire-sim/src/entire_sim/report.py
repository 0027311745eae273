"""A readable account, per agent and session, of what the Entire CLI would have recorded."""

from __future__ import annotations

from collections import Counter
from statistics import median
from typing import Any


def _tokens(usage: dict[str, Any] | None) -> str:
    if not usage:
        return "not computed (no changes in the turn)" if usage is None else "none"
    text = (f"input {usage['input_tokens']}, output {usage['output_tokens']}, cache read {usage['cache_read_tokens']}"
            f", cache write {usage['cache_creation_tokens']}, {usage['api_call_count']} API call(s)")  # fmt: skip
    sub = usage.get("subagent_tokens")
    if sub:
        text += f"; subagents: input {sub['input_tokens']}, output {sub['output_tokens']}, {sub['api_call_count']} call(s)"
    return text


def _short(text: str, limit: int = 90) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


def storage(checkpoints: list[dict[str, Any]]) -> dict[str, Any]:
    """What the CLI stores as ``full.jsonl`` across the turn checkpoints that were saved.

    ``growth`` is the median stored size of the last third of the turns over the middle third's: about
    1 when each checkpoint stores a bounded view, and about 2 when it stores the whole transcript so
    far (the first third is left out: every session starts small).
    """
    sizes = [int(c["transcript_bytes"]) for c in checkpoints if c.get("kind") == "turn" and c.get("saved")]
    third = len(sizes) // 3
    middle, last = sizes[third : 2 * third], sizes[2 * third :]
    growth = median(last) / median(middle) if middle and median(middle) else 1.0
    return {
        "checkpoints": len(sizes),
        "total_bytes": sum(sizes),
        "median_bytes": median(sizes) if sizes else 0,
        "max_bytes": max(sizes, default=0),
        "growth": round(growth, 3),
    }


def render(
    agent: str,
    title: str,
    hook_calls: list[dict[str, Any]],
    checkpoints: list[dict[str, Any]],
    violations: list[dict[str, Any]],
    extra: list[str] | None = None,
) -> str:
    """The report of one agent's run."""
    lines = [f"== {agent}: {title}"]
    lines += [f"   {line}" for line in extra or []]
    sessions: dict[str, list[dict[str, Any]]] = {}
    for checkpoint in checkpoints:
        sessions.setdefault(checkpoint["session_id"], []).append(checkpoint)
    for session_id, items in sessions.items():
        lines.append(f"   session {session_id}")
        for item in items:
            if item["kind"] == "turn":
                worktree = [f for f in item["files"] if f not in item["transcript_files"]]
                lines.append(f"     turn {item['turn']}: prompt  {_short(item['prompt']) or '(none)'!s}")
                lines.append(f"             files   {', '.join(item['transcript_files']) or '(none)'}")
                if worktree:
                    lines.append(f"             also uncommitted in the worktree: {', '.join(worktree)}")
                lines.append(f"             tokens  {_tokens(item['tokens'])}")
                if item.get("saved"):
                    lines.append(
                        f"             stored  {item['transcript_bytes']:,} transcript bytes (a checkpoint)"
                    )
                else:
                    # The CLI stops before saving a turn that changed no file (PROTOCOL.md, 5.3 step 9).
                    lines.append(f"             stored  nothing: no file changed, so no checkpoint "
                                 f"(the transcript read was {item['transcript_bytes']:,} bytes)")  # fmt: skip
            else:
                tokens = _tokens(item["tokens"]) if item.get("subagent_transcript") else "counted at TurnEnd"
                lines.append(f"     subagent {item.get('subagent_id') or item['tool_use_id']}: files "
                             f"{', '.join(item['transcript_files']) or '(none)'}; tokens {tokens}")  # fmt: skip
        stored = storage(items)
        if stored["checkpoints"]:
            lines.append(f"     stored  {stored['total_bytes']:,} transcript bytes in all, across {stored['checkpoints']} checkpoint(s); "
                         f"per turn median {stored['median_bytes']:,.0f}, max {stored['max_bytes']:,}"
                         + (f"; last third / middle third {stored['growth']:.2f}" if stored["checkpoints"] >= 3 else ""))  # fmt: skip
    events = Counter(r["event_name"] for r in hook_calls if r.get("event_name"))
    lines.append(f"   hooks fired: {len(hook_calls)}; events: "
                 + (", ".join(f"{name} x{count}" for name, count in events.items()) or "none"))  # fmt: skip
    errors = [v for v in violations if v.get("severity") == "error"]
    failed = [r for r in hook_calls if r.get("error")]
    lines.append(f"   protocol violations: {len(errors)}; failed hooks: {len(failed)}")
    for violation in errors + [v for v in violations if v.get("severity") != "error"]:
        lines.append(f"     [{violation.get('severity')}] {violation['subcommand']}: {violation['message']}")
    for record in failed:
        lines.append(f"     [failed hook] {record['hook']}: {record['error']}")
    return "\n".join(lines)
