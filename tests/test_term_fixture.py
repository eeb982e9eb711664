"""The plugin's ``term`` fixture: the test's program started for the test,
recorded under its name, shaken like any fixture's session, and configured
by a ``termsim_command`` fixture or the ``termsim`` mark."""

from __future__ import annotations

import pytest
from conftest import program

RAWECHO = program("rawecho.py")

CONFTEST = f'''
import pytest

@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request):
    return request.param

@pytest.fixture
def termsim_command():
    return {RAWECHO!r}

@pytest.fixture
def termsim_options():
    return {{"cols": 30, "rows": 3}}
'''

TESTS = '''
import pytest
from termsim import Text

pytestmark = pytest.mark.anyio

async def test_echo(term):
    await term.wait_for(Text("READY"), timeout=10)
    mark = await term.type("hello")
    screen = await term.wait_for(Text("READ b'hello'"), since=mark, timeout=10)
    assert screen.cols == 30

@pytest.mark.termsim(command=["sh", "-c", "echo OTHER; read x"], cols=40)
async def test_the_mark_names_another_program(term):
    screen = await term.wait_for(Text("OTHER"), timeout=10)
    assert screen.cols == 40
'''


def test_the_fixture_runs_the_command_records_it_and_is_shaken(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_app=TESTS)
    result = pytester.runpytest("-p", "no:randomly", "--termsim-keep=all", "--termsim-shake=3")
    text = result.stdout.str()
    assert result.ret == 0, text
    result.assert_outcomes(passed=4)
    assert "termsim shake: 4 passing tests ran 12 variants" in text, text
    assert "not shaken" not in text
    kept = sorted(p.name for p in (pytester.path / ".termsim").glob("*.tsr"))
    assert "test_app.py__test_echo[asyncio].tsr" in kept, kept


def test_without_a_command_the_error_says_how_to_name_one(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_app='''
import pytest

@pytest.fixture
def anyio_backend():
    return "asyncio"

@pytest.mark.anyio
async def test_x(term):
    pass
''')
    result = pytester.runpytest("-p", "no:randomly")
    text = result.stdout.str()
    result.assert_outcomes(errors=1)
    assert "the term fixture needs the program to start: a `termsim_command` fixture" in text
    assert "AttributeError" not in text and "TypeError" not in text
