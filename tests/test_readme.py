"""The README's example test runs, so the README stays true."""

from __future__ import annotations

import pytest
from readme import ROOT, block


def test_the_readme_example_test_passes(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = pytester.makepyfile(test_from_readme=block("a-test"))
    # As a reader runs it: from the checkout (it starts examples/agent_repl.py),
    # with only the plugins installed, no conftest of ours. In this process:
    # a new interpreter would only add its start-up.
    monkeypatch.chdir(ROOT)
    result = pytester.runpytest_inprocess("-q", "-p", "no:cacheprovider",
                                          f"--rootdir={pytester.path}", str(path))
    assert result.ret == 0, result.stdout.str()[-3000:] + result.stderr.str()[-2000:]
    result.assert_outcomes(passed=2)  # asyncio and trio


def test_the_readme_match_groups_example_passes(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = pytester.makepyfile(test_match_groups=block("match-groups"))
    monkeypatch.chdir(ROOT)  # it starts examples/agent_repl.py, as a reader would
    result = pytester.runpytest_inprocess("-q", "-p", "no:cacheprovider",
                                          f"--rootdir={pytester.path}", str(path))
    assert result.ret == 0, result.stdout.str()[-3000:] + result.stderr.str()[-2000:]
    result.assert_outcomes(passed=2)  # asyncio and trio
    # It fails when the program says otherwise: the groups are read, not assumed.
    pytester.makepyfile(test_match_groups=block("match-groups").replace("> 0", "> 10**6"))
    result = pytester.runpytest_inprocess("-q", "-p", "no:cacheprovider",
                                          f"--rootdir={pytester.path}", str(path))
    result.assert_outcomes(failed=2)
