from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture
def history_bytes() -> bytes:
    return (DATA / "aider.chat.history.md").read_bytes()
