def main() -> int:
    from entire_core.cli import run

    from .agent import AiderAgent

    return run(AiderAgent)


if __name__ == "__main__":
    raise SystemExit(main())
