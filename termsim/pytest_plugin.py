"""pytest plugin: every session a test spawns is recorded; failures keep theirs.

Registered through the ``pytest11`` entry point, so installing termsim is
enough. While a test runs, ``termsim.spawn()`` records to a file named after
the test in ``--termsim-dir`` (default ``.termsim`` under the rootdir). When
the test fails, its recordings stay and the failure report gets a "termsim"
section: each recording's path, the wait that failed, the final screen, and
the commands that replay it. When it passes they are deleted, unless
``--termsim-keep=all``; ``--termsim-keep=none`` turns recording off.

Beside each recording a failure keeps, the PNG of its failed screen (the
failed wait's, outlined and captioned, or the final one): ``x.tsr`` gets
``x.png``, named on a ``picture:`` line of the report, so that the folder
uploaded as a CI artifact carries a picture anyone can open
(``--termsim-pictures=no``, or the ini setting ``termsim_pictures = no``,
turns it off). Pictures need Pillow, an extra: without it none is drawn,
no test fails for it, and the summary says once how to install it.

Retries never erase evidence: every attempt records to its own file, and a
failed attempt's files are kept and reported even when a rerun passes.
Names carry the test id and an attempt number, created exclusively, so
pytest-xdist workers never collide. Only public pytest hooks are used, and
termsim's own public hook (:func:`termsim.runner.record_sessions`).

The ``termsim_recordings`` fixture gives a test the paths its sessions
recorded to so far (to attach them, or replay them in the same test).

Hunting flakes:

* ``--termsim-shake=N``: after a test passes, its body runs N more times,
  each ``spawn()`` answered by a replay of the matching recording played as
  a variant that could physically have happened (``termsim.offline.shake``).
  Sessions its function-scoped fixtures started are replayed too (those
  fixtures run again up to their ``yield``), and its goldens are checked,
  never written. A variant that fails the test fails it, with the smallest
  variant in words and the line that replays it.
  ``--termsim-shake-variant=TEXT`` runs one given variant. A test that
  cannot be shaken (it fails against its own unchanged recording, or holds
  a session no recording stands for) is named in the summary with the
  reason, and not counted as shaken.
* Reruns (pytest-rerunfailures, or any plugin that reports a failed attempt
  as "rerun") never hide a failure: a rerun that passes hides an
  intermittent regression, so a test that failed and then passed fails the
  run (``--termsim-flaky=fail``, the default) unless it carries
  ``@pytest.mark.termsim_flaky(reason=..., until="YYYY-MM-DD")`` and that
  date has not passed (a marker without a reason, or with an ``until`` that
  is not a date, fails the test's setup). Either way it is listed in a
  "termsim flaky" summary with the failed attempt's error, both attempts'
  recordings and their diff; ``--termsim-flaky=report`` only lists it.

Around each test it also sets, as context for the sessions the test starts,
golden screens (``--termsim-update``), hygiene (``--termsim-hygiene``) and
the combination of a test matrix (``@pytest.mark.termsim(profiles=...,
sizes=...)``, ``--termsim-profiles``), which ``pytest_generate_tests``
makes one test each.

Why one module past 500 lines: pytest loads a plugin's hooks from the one
module its entry point names; what each hook does beyond pytest's plumbing
lives elsewhere (``engine.settings``, ``offline.shake``, ``offline.evidence``).
"""

from __future__ import annotations

import contextlib
import inspect
import os
import re
import shlex
import tempfile
from collections import Counter
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from . import pytest_fixtures, surface  # noqa: F401  (surface: errors under their public names)
from .engine import settings
from .engine.settings import golden_screens, record_sessions
from .errors import RecordingError, TermsimError
from .offline.evidence import (
    MARKER_USAGE,
    describe_recordings,
    expired,
    failure_pictures,
    flaky_lines,
    flaky_marker,
)

if TYPE_CHECKING:
    from .offline.shake import FixtureRun

# The `term` fixture and the two that configure it (``pytest_fixtures``):
# pytest finds a plugin's fixtures among its module's names.
term = pytest_fixtures.term
termsim_command = pytest_fixtures.termsim_command
termsim_options = pytest_fixtures.termsim_options

_KEY = pytest.StashKey[list[Path]]()
#: The recordings of the sessions the test's function-scoped fixtures started.
_FIXTURE_KEY = pytest.StashKey[list[Path]]()
#: Whether this attempt's setup or call failed (its fixtures' files stay).
_FAILED_PHASE = pytest.StashKey[bool]()
#: The goldens a test used: (path, outcome).
_GOLDENS = pytest.StashKey[list[tuple[str, str]]]()
#: Every attempt of a test so far: (outcome, its recordings, its error if it failed).
_ATTEMPTS = pytest.StashKey[list[tuple[str, list[Path], str]]]()
#: The function-scoped fixtures this attempt set up (noted when shaking).
_FIXTURE_RUNS = pytest.StashKey[list["FixtureRun"]]()
#: Whether this attempt's call has begun (a fixture set up now was asked for by the body).
_CALLING = pytest.StashKey[bool]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("termsim", "termsim terminal-session recordings")
    group.addoption(
        "--termsim-dir", default=None, metavar="DIR",
        help="where recordings of failed tests are kept (default: .termsim in the rootdir)",
    )
    group.addoption(
        "--termsim-keep", default="failed", choices=("failed", "all", "none"),
        help="keep recordings of failed tests (default), of all tests, or record nothing",
    )
    group.addoption(
        "--termsim-shake", type=int, default=0, metavar="N",
        help="after a test passes, run its body N more times against variants of its "
        "recordings that could have happened; a variant that fails it fails it",
    )
    group.addoption(
        "--termsim-shake-variant", default=None, metavar="TEXT",
        help="after a test passes, run its body once against this variant (as a shake "
        "report prints it; one per session, joined by ' | ')",
    )
    group.addoption(
        "--termsim-update", action="store_true", default=False,
        help="write golden screens that are missing, and rewrite those that no longer match "
        "(expect_screen(golden=...))",
    )
    group.addoption(
        "--termsim-profiles", default=None, metavar="NAMES",
        help="run each test once per terminal profile (comma-separated, or 'all'; "
        "termsim profiles lists them), as @pytest.mark.termsim(profiles=[...]) does",
    )
    group.addoption(
        "--termsim-hygiene", action="store_true", default=False,
        help="fail a test whose program exits leaving the terminal dirty (the alternate "
        "screen, mouse tracking, bracketed paste... still on); spawn(hygiene=False) opts out",
    )
    group.addoption(
        "--termsim-pictures", default=None, metavar="yes|no",
        help="draw a PNG of the failed screen beside each kept recording, named in the "
        "failure report (yes, the default; it needs Pillow: pip install 'termsim[pictures]'), "
        "or not (no); the ini setting termsim_pictures says the same",
    )
    parser.addini(
        "termsim_pictures", default="yes",
        help="yes (the default) or no: whether termsim draws a PNG of the failed screen "
        "beside each kept recording (--termsim-pictures overrides it)",
    )
    group.addoption(
        "--termsim-flaky", default="fail", choices=("fail", "report"),
        help="a test that passed only on a rerun (pytest-rerunfailures) hides an intermittent "
        "failure: fail the run (default) unless it is marked termsim_flaky(reason=..., "
        "until='YYYY-MM-DD') and not expired, or only list it (report); either way the "
        "summary shows the failed attempt's error and recordings",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "termsim_flaky(reason, until): this test is known to need reruns until "
        "the date (YYYY-MM-DD, the last day allowed): a rerun that passes does not fail "
        "the run until then")
    config.addinivalue_line(
        "markers", "termsim(command=None, profiles=None, sizes=None, **options): run the "
        "test once per terminal profile and size (its sessions take them unless they say "
        "otherwise); command and options: what the term fixture starts, and how")
    if not hasattr(config, "workerinput"):  # xdist workers report to the controller
        config.pluginmanager.register(_Summary(config), "termsim-summary")
    if config.getoption("--termsim-keep") != "none":
        _check_directory(config)
    _check_variant(config)
    _check_pictures(config)


#: Whether to draw the PNG of a failed test's screen beside its recordings.
_PICTURES = pytest.StashKey[bool]()
#: What a report's user properties carry when a picture was wanted and
#: Pillow is not installed (the summary says once how to install it).
_NO_PILLOW = "termsim_no_pillow"


def _check_pictures(config: pytest.Config) -> None:
    """``--termsim-pictures`` (or the ini setting ``termsim_pictures``) is
    yes or no: anything else is one usage error at start-up."""
    given = config.getoption("--termsim-pictures")
    where = f"--termsim-pictures={given}" if given is not None else None
    if given is None:
        given = str(config.getini("termsim_pictures"))
        where = f"the ini setting termsim_pictures = {given}"
    value = given.strip().lower()
    if value not in ("yes", "no"):
        raise pytest.UsageError(
            f"termsim: {where}: say yes (draw a PNG of the failed screen beside each kept "
            "recording, the default) or no (--termsim-pictures=no, or termsim_pictures = no "
            "in the ini file)")
    config.stash[_PICTURES] = value == "yes"


def _check_variant(config: pytest.Config) -> None:
    """A ``--termsim-shake-variant`` that cannot be read is one usage error at
    start-up, not a traceback in every test that would be shaken."""
    given = config.getoption("--termsim-shake-variant")
    if given is None:
        return
    from .offline.shake import parse_variants

    try:
        parse_variants(given)
    except (ValueError, TermsimError) as exc:
        raise pytest.UsageError(
            f"--termsim-shake-variant={given!r}: {exc} (copy the variant a shake failure "
            "prints, e.g. --termsim-shake-variant='split 29')") from None


def _check_directory(config: pytest.Config) -> None:
    """Make sure the recordings can be written, before any test runs.

    A directory that cannot be made or written would otherwise be an
    ``OSError`` in every test that starts a session, passing ones too. One
    given with ``--termsim-dir`` is a usage error; the default (which the
    run did not ask for, and may not need: the plugin loads wherever termsim
    is installed) is a warning, and the run records nothing, as pytest does
    with a cache directory it cannot write.
    """
    directory = _directory(config)
    problem = _unwritable(directory)
    if problem is None:
        return
    fix = ("Give --termsim-dir a directory that can be written (it is made if missing), "
           "or --termsim-keep=none to record nothing.")
    given = config.getoption("--termsim-dir")
    if given:
        raise pytest.UsageError(f"termsim: --termsim-dir {given}: {problem}. {fix}")
    config.stash[_RECORDING_OFF] = problem
    config.issue_config_time_warning(pytest.PytestConfigWarning(
        f"termsim: recordings cannot be kept in {directory}: {problem}; this run records "
        f"no sessions. {fix}"), stacklevel=2)


#: Why this run records nothing although --termsim-keep asks it to.
_RECORDING_OFF = pytest.StashKey[str]()


def _recording(config: pytest.Config) -> bool:
    """Whether this run records its sessions."""
    return config.getoption("--termsim-keep") != "none" and _RECORDING_OFF not in config.stash


def _unwritable(directory: Path) -> str | None:
    """Why recordings cannot be written in ``directory``, or None.

    Nothing is left behind: the directory is made when the first session
    records, as before; here a probe directory is made and removed where it
    would be (in it, or in its nearest existing parent), since permission
    bits say nothing for root, whom only a read-only or special file system
    stops."""
    existing = directory
    try:
        existing = next(p for p in (directory, *directory.parents) if p.exists())
        if not existing.is_dir():
            return "it is a file, not a directory" if existing == directory \
                else f"{existing} is a file, not a directory"
        os.rmdir(tempfile.mkdtemp(prefix=".termsim-probe-", dir=existing))
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return f"it cannot be written to ({reason})" if existing == directory \
            else f"it cannot be made in {existing} ({reason})"
    return None


#: The fixture a matrix parametrizes: one combination per test id.
MATRIX_FIXTURE = "termsim_matrix"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """One test per combination of the ``termsim`` mark's profiles and
    sizes (and ``--termsim-profiles``), named in the test's id
    (``test_x[kitty-40x12]``) and so in its recording's name."""
    marker = metafunc.definition.get_closest_marker("termsim")
    option = metafunc.config.getoption("--termsim-profiles")
    profiles: list[str | None] = [None]
    sizes: list[tuple[int, int] | None] = [None]
    if marker is not None:
        profiles = list(marker.kwargs.get("profiles") or [None])
        sizes = [tuple(size) for size in marker.kwargs.get("sizes") or []] or [None]
    if option:
        from .emulator.terminals.profiles import PROFILES

        profiles = list(PROFILES) if option == "all" else option.split(",")
    if profiles == [None] and sizes == [None]:
        return
    combos = [settings.Matrix(profile, size) for profile in profiles for size in sizes]
    if MATRIX_FIXTURE not in metafunc.fixturenames:
        metafunc.fixturenames.append(MATRIX_FIXTURE)
    metafunc.parametrize(MATRIX_FIXTURE, combos, ids=[c.label() for c in combos],
                         indirect=True)


@pytest.fixture
def termsim_matrix(request: pytest.FixtureRequest) -> settings.Matrix | None:
    """The combination of the test matrix this test runs (None: no matrix)."""
    return getattr(request, "param", None)


def _directory(config: pytest.Config) -> Path:
    """Absolute, so that a test that changes directory records where asked."""
    option = config.getoption("--termsim-dir")
    if not option:
        return Path(str(config.rootpath)) / ".termsim"
    return Path(str(config.invocation_params.dir)) / str(option)


def _safe(nodeid: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_.\[\]-]+", "_", nodeid.replace("::", "__"))
    return name.strip("_.")[:150] or "test"


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    # Each attempt (a rerun is a new attempt of the same item) starts new lists.
    item.stash[_KEY] = []
    item.stash[_FIXTURE_KEY] = []
    item.stash[_FIXTURE_RUNS] = []
    item.stash[_CALLING] = False
    item.stash[_FAILED_PHASE] = False
    if _ATTEMPTS not in item.stash:
        # This run's first attempt: the files of an earlier run of this test
        # are stale evidence next to the new ones, so they go.
        item.stash[_ATTEMPTS] = []
        if _recording(item.config):
            _remove_stale(_directory(item.config), _safe(item.nodeid))
    marker = item.get_closest_marker("termsim_flaky")
    if marker is not None:
        try:
            flaky_marker(marker.args, marker.kwargs)
        except ValueError as exc:
            # Said the day the marker is written, not the day the test flakes.
            pytest.fail(f"{item.nodeid}: {exc}", pytrace=False)


def _remove_stale(directory: Path, stem: str) -> None:
    """Delete ``stem.tsr`` and ``stem-N.tsr`` (an earlier run's attempts),
    and the pictures drawn beside them (``stem.png``, ``stem-N.png``)."""
    own = re.compile(re.escape(stem) + r"(-[0-9]+)?\.(tsr|png)")
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        if own.fullmatch(name):
            try:
                os.remove(directory / name)
            except OSError:
                pass


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    __tracebackhide__ = True
    return (yield from _recorded_call(item))


#: The marks by which a plugin runs an async test (anyio's, pytest-asyncio's,
#: pytest-trio's).
_ASYNC_MARKERS = ("anyio", "asyncio", "trio")


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> Generator[None, object, object]:
    """Carry termsim's settings (set around the call, above) into the task
    that runs an async test. They are context variables, and anyio's runner
    runs every test of a module in one task made before them, whose context
    is not the caller's: set there directly, they would not be seen, or a
    test's would stay for the next. Applied inside the test's coroutine,
    they hold for the test and the tasks it starts, and end with it."""
    test = pyfuncitem.obj
    if not inspect.iscoroutinefunction(test):
        return (yield)
    if not any(pyfuncitem.get_closest_marker(name) for name in _ASYNC_MARKERS) \
            and "anyio_backend" not in pyfuncitem.funcargs:
        # Without a runner pytest says only "install a suitable plugin",
        # though anyio's, which termsim's tests run on, is installed.
        pytest.fail(
            f"{pyfuncitem.name} is an async test, and nothing runs it: mark it for anyio's "
            "pytest plugin (installed with termsim), `pytestmark = pytest.mark.anyio` at the "
            "top of the module or `@pytest.mark.anyio` on the test", pytrace=False)
    pyfuncitem.obj = settings.carried(test, settings.current())
    try:
        return (yield)
    finally:
        pyfuncitem.obj = test


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_fixture_setup(
    fixturedef: pytest.FixtureDef[Any], request: pytest.FixtureRequest,
) -> Generator[None, object, object]:
    """A function-scoped async fixture starts its sessions as the test
    would: recorded (to the test's name, beside the test's own recordings,
    and reported when the setup, the test or the teardown fails), in the
    matrix combination, with its goldens and hygiene. Outermost, so that
    anyio's runner (which wraps the fixture next) runs this wrapper. When
    shaking, every function-scoped fixture is noted, with the arguments it
    was given, so that those whose sessions a variant replays can run again."""
    item = request.node
    func = fixturedef.func
    if fixturedef.scope != "function" or not isinstance(item, pytest.Item):
        return (yield)
    records = not inspect.ismethod(func) and (
        inspect.iscoroutinefunction(func) or inspect.isasyncgenfunction(func))
    started = item.stash.setdefault(_FIXTURE_KEY, [])
    before = len(started)
    if records:
        with _test_settings(item, _FIXTURE_KEY):
            values = settings.current()
        fixturedef.func = settings.carried(func, values)  # type: ignore[misc]
    try:
        value = yield
    finally:
        if records:
            fixturedef.func = func  # type: ignore[misc]
    if _shaking(item.config):
        _note_fixture(item, fixturedef, request, len(started) - before)
    return value


def _shaking(config: pytest.Config) -> bool:
    return bool(config.getoption("--termsim-shake")
                or config.getoption("--termsim-shake-variant"))


def _note_fixture(item: pytest.Item, fixturedef: pytest.FixtureDef[Any],
                  request: pytest.FixtureRequest, sessions: int) -> None:
    """What shake needs to run a fixture again: its function and the values
    it was given (set up already, so asking for them again starts nothing)."""
    from .offline.shake import FixtureRun

    func = fixturedef.func
    unrunnable = None
    if inspect.ismethod(func):
        unrunnable = "is a method of a test class, which shake does not run again"
    elif item.stash.get(_CALLING, False):
        unrunnable = ("was asked for by the test's body (request.getfixturevalue), which "
                      "shake does not do again")
    kwargs = {name: request.getfixturevalue(name) for name in fixturedef.argnames}
    item.stash.setdefault(_FIXTURE_RUNS, []).append(
        FixtureRun(fixturedef.argname, func, kwargs, sessions, unrunnable))


def golden_file(item: pytest.Item, name: str) -> Path:
    """Where a test's golden screen ``name`` lives: ``<test file
    stem>.screens/<test function>__<name>.screen`` beside the test file (one
    file for every parametrization: name it after the parameter if the
    screens differ)."""
    test_file = Path(str(item.path))
    function = getattr(item, "originalname", None) or item.name
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_.") or "screen"
    return test_file.parent / f"{test_file.stem}.screens" / f"{function}__{safe}.screen"


def _goldens(item: pytest.Item) -> contextlib.AbstractContextManager[None]:
    used = item.stash.setdefault(_GOLDENS, [])
    return golden_screens(lambda name: golden_file(item, name),
                          update=bool(item.config.getoption("--termsim-update")),
                          used=lambda path, outcome: used.append((path, outcome)))


def _allocator(item: pytest.Item, made: list[Path]) -> Callable[[list[str]], str]:
    """Files for a test's sessions, named after it: ``<test id>.tsr``, then
    ``-2``, ``-3``... (created exclusively: xdist workers never collide),
    each appended to ``made``."""
    directory = _directory(item.config)

    def allocate(argv: list[str]) -> str:
        directory.mkdir(parents=True, exist_ok=True)
        stem = _safe(item.nodeid)
        n = 1
        while True:
            path = directory / (f"{stem}.tsr" if n == 1 else f"{stem}-{n}.tsr")
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                n += 1
                continue
            os.close(fd)
            made.append(path)
            return str(path)

    return allocate


@contextlib.contextmanager
def _test_settings(item: pytest.Item,
                   key: pytest.StashKey[list[Path]] | None) -> Iterator[None]:
    """What the sessions of a test (or of its fixtures: ``key``) start in:
    goldens, hygiene, the matrix combination, and recording to files
    listed under ``key``. ``key`` None: a shaken body's, whose goldens are
    checked only, and whose recording is the shaker's (none)."""
    hygiene = bool(item.config.getoption("--termsim-hygiene"))
    callspec = getattr(item, "callspec", None)
    matrix = callspec.params.get(MATRIX_FIXTURE) if callspec is not None else None
    recording: contextlib.AbstractContextManager[None]
    if key is None:
        recording = settings.goldens_checked_only()
    else:
        made = item.stash.setdefault(key, [])
        recording = record_sessions(_allocator(item, made) if _recording(item.config)
                                    else None)
    with _goldens(item), settings.check_hygiene(hygiene), \
            settings.matrix_combination(matrix), recording:
        yield


def _recorded_call(item: pytest.Item) -> Generator[None, None, None]:
    __tracebackhide__ = True
    item.stash[_CALLING] = True
    with _test_settings(item, _KEY):
        result = yield
    if _recording(item.config):
        _shake(item, item.stash.get(_FIXTURE_KEY, []) + item.stash[_KEY])
    return result


def _shake(item: pytest.Item, made: list[Path]) -> None:
    """Run a passed test's body against variants of its recordings (see
    above): ``made``, its fixtures' and its body's, in the order they started."""
    __tracebackhide__ = True
    from .offline.shake import Shaker, parse_variants, variant_text

    config = item.config
    count = config.getoption("--termsim-shake")
    given = config.getoption("--termsim-shake-variant")
    if not (count or given):
        return
    body, why = _shaken_body(item)
    if body is None:
        item.stash[_UNSHAKEN] = why
        return
    if not made:
        return  # no session: nothing to shake
    try:
        shaker = Shaker([p.absolute() for p in made], body, name=item.nodeid,
                        shown=[str(_relative(p, config)) for p in made])
    except RecordingError as exc:
        # termsim lost its own evidence: the test was not shaken, and a pass
        # would say it had been.
        raise TermsimError(f"termsim could not shake {item.nodeid}: its recording cannot "
                           f"be read: {exc}") from None
    with _test_settings(item, None):
        unreplayable = shaker.replayable()
        if unreplayable is not None:
            item.stash[_UNSHAKEN] = (
                "it fails against its own unchanged recording (it checks something a replay "
                f"does not have): {type(unreplayable).__name__}: {unreplayable}"
            ).split("\n")[0]
            return
        if given:
            variants = parse_variants(given)
            error = shaker.attempt(variants)
            failure = None if error is None else shaker.failure(0, variants, error, 1)
        else:
            failure = shaker.shake(count)
    item.stash[_SHAKEN_RUNS] = shaker.tried or 1
    if failure is not None:
        line = (f"pytest {shlex.quote(item.nodeid)} "
                f"--termsim-shake-variant={shlex.quote(variant_text(failure.variants))}")
        failure.args = (f"{failure.args[0]}\n  or run the test on it: {line}",)
        # Raised through the frames of the test that failed on the variant,
        # so the report shows the test's lines, not the plugin's.
        raise failure.with_traceback(failure.error.__traceback__)


def _shaken_body(item: pytest.Item) -> tuple[Callable[[], None] | None, str]:
    """What a variant runs: the test (``item.runtest``), after the fixtures
    whose sessions it replays are set up again; or None, and why the test
    cannot be shaken."""
    from .engine.driver import Driver
    from .offline.shake import fixtures_to_rerun, run_with_fixtures

    runs: list[FixtureRun] = item.stash.get(_FIXTURE_RUNS, [])
    again, why = fixtures_to_rerun(runs)
    if why is not None:
        return None, why
    names = {run.name for run in again}
    for name, value in getattr(item, "funcargs", {}).items():
        if isinstance(value, Driver) and name not in names:
            # The body would drive it again, live, in whatever state the
            # first run left it: no variant of anything.
            return None, (f"its fixture {name!r} gives a session no recording of this test "
                          "stands for (a fixture of a wider scope than the function, or "
                          "spawn(record=False)), which shake cannot replay")
    if not again:
        return item.runtest, ""
    test = getattr(item, "obj", None)
    if not inspect.iscoroutinefunction(test):
        return None, "its fixtures start sessions, and only an async test's are replayed"

    async def with_fixtures(**testargs: Any) -> Any:
        __tracebackhide__ = True
        return await run_with_fixtures(test, testargs, again)

    def body() -> None:
        __tracebackhide__ = True
        item.obj = with_fixtures  # type: ignore[attr-defined]
        try:
            item.runtest()
        finally:
            item.obj = test  # type: ignore[attr-defined]

    return body, ""


_SHAKEN_RUNS = pytest.StashKey[int]()
#: Why a passing test could not be shaken (its body fails on its own replay).
_UNSHAKEN = pytest.StashKey[str]()


@pytest.fixture
def termsim_recordings(request: pytest.FixtureRequest) -> list[Path]:
    """The files this test's sessions recorded to, in the order they started
    (empty with ``--termsim-keep=none``). The list grows as sessions start."""
    made: list[Path] = request.node.stash.setdefault(_KEY, [])
    return made


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None],
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.when != "call":
        return _fixture_recordings(item, report)
    made = item.stash.get(_KEY, [])
    fixtures = item.stash.get(_FIXTURE_KEY, [])
    attempts = item.stash.setdefault(_ATTEMPTS, [])
    outcome = str(report.outcome)
    attempts.append((outcome, fixtures + made, _error(report, item.config)))
    for golden, golden_outcome in item.stash.get(_GOLDENS, []):
        report.user_properties.append(("termsim_golden", (golden, golden_outcome)))
    item.stash[_GOLDENS] = []
    if _SHAKEN_RUNS in item.stash:
        report.user_properties.append(("termsim_shaken", item.stash[_SHAKEN_RUNS]))
        del item.stash[_SHAKEN_RUNS]
    if _UNSHAKEN in item.stash:
        report.user_properties.append(("termsim_unshaken", f"{item.nodeid}: "
                                       f"{item.stash[_UNSHAKEN]}"))
        del item.stash[_UNSHAKEN]
    # pytest-rerunfailures reports a failed attempt that will be retried as
    # "rerun": that attempt's recordings are evidence too.
    failed_before = [(paths, error) for result, paths, error in attempts[:-1]
                     if result in ("rerun", "failed")]
    if report.passed and failed_before:
        report.user_properties.append(("termsim_flaky", _flaky(item, *failed_before[-1],
                                                               fixtures + made)))
        item.stash[_FAILED_PHASE] = True  # the fixtures' files stay too: evidence
        return report  # both attempts' recordings are kept
    if report.failed or outcome == "rerun":
        item.stash[_FAILED_PHASE] = True
    failed: bool = item.stash.get(_FAILED_PHASE, False)
    if not made and not (fixtures and failed):
        return report
    if report.failed or outcome == "rerun":
        # The fixtures' sessions are still open: their files so far.
        _report_recordings(item, report, fixtures + made)
    elif item.config.getoption("--termsim-keep") != "all":
        for path in made:
            try:
                path.unlink()
            except OSError:
                pass
    return report


def _fixture_recordings(item: pytest.Item, report: pytest.TestReport) -> pytest.TestReport:
    """The recordings of the test's fixtures' sessions: reported with a
    failed setup (a fixture's wait timed out) or teardown (a session left
    the terminal dirty); kept when any phase failed; else deleted once the
    teardown closed them (unless ``--termsim-keep=all``)."""
    fixtures = item.stash.get(_FIXTURE_KEY, [])
    # pytest-rerunfailures reports a failed attempt it will retry as "rerun".
    failing = report.failed or str(report.outcome) == "rerun"
    attempts = item.stash.setdefault(_ATTEMPTS, [])
    if failing and report.when == "setup":
        # An attempt that ended in its setup (a fixture's wait failed, with
        # or without sessions): a rerun that passes makes the test flaky.
        attempts.append((str(report.outcome), list(fixtures), _error(report, item.config)))
    elif failing and attempts and attempts[-1][0] == "passed":
        # Its teardown failed (a session left the terminal dirty): so did the attempt.
        attempts[-1] = ("failed", attempts[-1][1], _error(report, item.config))
    if not fixtures:
        return report
    failed = failing or item.stash.get(_FAILED_PHASE, False)
    item.stash[_FAILED_PHASE] = failed
    if failing:
        _report_recordings(item, report, fixtures)
    elif report.when == "teardown" and not failed \
            and item.config.getoption("--termsim-keep") != "all":
        for path in fixtures:
            try:
                path.unlink()
            except OSError:
                pass
    return report


def _report_recordings(item: pytest.Item, report: pytest.TestReport,
                       paths: list[Path]) -> None:
    """The "termsim recordings" section of a failed report, after the PNG
    of each recording's failed screen is drawn beside it (unless
    ``--termsim-pictures=no``). Without Pillow, none is drawn, and the
    report carries a note the summary reads to say once how to install it
    (a user property: under xdist, the worker's report reaches the
    controller with it)."""
    def shown(path: Path) -> Path:
        return _relative(path, item.config)

    pictures = None
    if item.config.stash.get(_PICTURES, True):
        pictures = failure_pictures(paths, shown)
        if pictures is None and (_NO_PILLOW, True) not in report.user_properties:
            report.user_properties.append((_NO_PILLOW, True))
    report.sections.append(("termsim recordings", describe_recordings(paths, shown, pictures)))


def _error(report: pytest.TestReport, config: pytest.Config) -> str:
    """A failed attempt's error as the flaky summary shows it ("" if it
    passed): where it was raised and its message, which pytest prints for
    no attempt it reran (not even with ``-rR``)."""
    if not report.failed:
        return ""
    phase = "" if report.when == "call" else f" (in its {report.when})"
    crash = getattr(report.longrepr, "reprcrash", None)
    message = getattr(crash, "message", None)
    if crash is None or not message:
        return f"{phase.strip()} {report.longreprtext}".strip()
    where = f"{_relative(Path(crash.path), config)}:{crash.lineno}" if crash.path else ""
    return f"{where}{phase}: {message}"


def _flaky(item: pytest.Item, failed: list[Path], error: str,
           passed: list[Path]) -> dict[str, Any]:
    """What the summary says of a test that passed only on a rerun."""
    from .offline.diff import diff

    config = item.config
    info: dict[str, Any] = {
        "nodeid": item.nodeid,
        "failed": [str(_relative(p, config)) for p in failed],
        "passed": [str(_relative(p, config)) for p in passed],
        "error": error,
        "diff": "",
        "allowed": None,
    }
    if failed and passed:
        try:
            info["diff"] = diff(passed[0], failed[0]).summary()
        except RecordingError as exc:
            info["diff"] = f"(no diff: {exc})"
    marker = item.get_closest_marker("termsim_flaky")
    if marker is not None:  # read at setup already: a bad one failed it there
        info["allowed"] = flaky_marker(marker.args, marker.kwargs)
    return info


class _Summary:
    """What the run learns of flaky and shaken tests, on the process that
    reports (the xdist controller, or the only process): a plugin object, so
    its hooks see the config."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.directory_existed = _directory(config).exists()
        self.flaky: list[dict[str, Any]] = []
        self.shaken: list[int] = []
        self.unshaken: list[str] = []
        #: Every golden each test (each parametrization its own) used, and
        #: what became of it: {(test id, golden's path): outcome}.
        self.goldens: dict[tuple[str, str], str] = {}
        #: The test files that ran (their .screens directories are checked).
        self.test_files: set[str] = set()
        #: (test file, function) of tests that failed or were skipped, which
        #: may not have reached their goldens: those are not "unused".
        self.unfinished: set[tuple[str, str]] = set()
        #: Why --termsim-flaky=fail failed the run ("" if it did not).
        self.failed_run = ""
        #: Whether a failed test got no picture because Pillow is not installed.
        self.no_pillow = False

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if any(name == _NO_PILLOW for name, _ in report.user_properties):
            self.no_pillow = True
        if report.failed or report.skipped:
            function = report.nodeid.split("::")[-1].split("[")[0]
            self.unfinished.add((str(report.fspath), function))
        if report.when != "call":
            return
        self.test_files.add(report.fspath)
        for name, value in report.user_properties:
            if name == "termsim_golden" and isinstance(value, tuple | list) and len(value) == 2:
                key = (report.nodeid, str(value[0]))
                # What changed wins over a later "matched" (a rerun's, or the
                # same golden checked again), and a failure over both.
                if _GOLDEN_RANK.get(str(value[1]), 0) >= _GOLDEN_RANK.get(
                        self.goldens.get(key, ""), -1):
                    self.goldens[key] = str(value[1])
            if name == "termsim_flaky" and isinstance(value, dict):
                # A test listed once, as its last passing attempt saw it.
                self.flaky = [f for f in self.flaky if f["nodeid"] != value["nodeid"]]
                self.flaky.append(value)
            elif name == "termsim_shaken" and isinstance(value, int):
                self.shaken.append(value)
            elif name == "termsim_unshaken" and isinstance(value, str):
                self.unshaken.append(value)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.no_pillow:
            from .report.picture import INSTALL

            terminalreporter.write_line(
                "termsim pictures: no PNG of the failed screens was drawn beside their "
                f"recordings: Pillow is not installed; install it with: {INSTALL} "
                "(or give --termsim-pictures=no)")
        self._golden_summary(terminalreporter)
        self._shake_summary(terminalreporter)
        if not self.flaky:
            return
        terminalreporter.section("termsim flaky")
        for info in self.flaky:
            for line in flaky_lines(info):
                terminalreporter.write_line(line)
        if self.failed_run:  # the last line before the counts, which show no failure
            terminalreporter.write_line(self.failed_run, red=True, bold=True)

    def _shake_summary(self, terminalreporter: Any) -> None:
        """How many tests were shaken, and each that was not, with why
        (never counted as shaken: a pass would say it had been)."""
        if _shaking(self.config) and not _recording(self.config):
            terminalreporter.write_line("termsim shake: no test was shaken: this run records "
                                        "no sessions (--termsim-keep=none, or see above)")
        if self.shaken:
            terminalreporter.write_line(
                f"termsim shake: {len(self.shaken)} passing tests ran {sum(self.shaken)} "
                "variants of their recordings")
        if self.unshaken:
            terminalreporter.write_line(
                f"termsim shake: {len(self.unshaken)} tests were not shaken:")
            for line in self.unshaken[:20]:
                terminalreporter.write_line(f"  {line[:300]}")
            if len(self.unshaken) > 20:
                terminalreporter.write_line(f"  … and {len(self.unshaken) - 20} more")

    def _golden_summary(self, terminalreporter: Any) -> None:
        """The goldens --termsim-update wrote or rewrote, counted per test
        id (two parametrizations sharing a golden are two: one may write
        it, the other find it unchanged), and each changed one named."""
        counts = Counter(self.goldens.values())
        changed = [f"{counts[k]} {k}" for k in ("written", "updated") if counts[k]]
        if changed:
            terminalreporter.write_line(f"termsim goldens: {', '.join(changed)}, "
                                        f"{counts['matched']} unchanged (--termsim-update)")
            named = sorted((nodeid, path, outcome) for (nodeid, path), outcome
                           in self.goldens.items() if outcome in ("written", "updated"))
            for nodeid, path, outcome in named[:20]:
                terminalreporter.write_line(
                    f"  {outcome}: {_relative(Path(path), self.config)} ({nodeid})")
            if len(named) > 20:
                terminalreporter.write_line(f"  … and {len(named) - 20} more")
        for path in self._unused():
            terminalreporter.write_line(f"termsim golden not used by any test: {path}")

    def _unused(self) -> list[str]:
        """Goldens in the .screens directories of the test files that ran
        that no test used. Only for runs of whole files (no -k, -m or
        node ids), where every test that could use them ran."""
        option = self.config.option
        if getattr(option, "keyword", "") or getattr(option, "markexpr", "") or any(
                "::" in str(arg) for arg in self.config.args):
            return []
        root = Path(str(self.config.rootpath))
        used = {os.path.realpath(p) for _, p in self.goldens}
        out = []
        for test_file in sorted(self.test_files):
            path = root / test_file
            screens = path.parent / f"{path.stem}.screens"
            for golden in sorted(screens.glob("*.screen")):
                function = golden.name.split("__")[0]
                if (test_file, function) in self.unfinished:
                    continue  # its test ended before it, it is not known unused
                if os.path.realpath(golden) not in used:
                    out.append(str(_relative(golden, self.config)))
        return out

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not self.directory_existed:
            try:
                _directory(self.config).rmdir()  # if empty: an all-pass run leaves nothing
            except OSError:
                pass
        if self.config.getoption("--termsim-flaky") != "fail":
            return
        failing = [info["nodeid"] for info in self.flaky if expired(info["allowed"])]
        if failing and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
            more = f" and {len(failing) - 5} more" if len(failing) > 5 else ""
            self.failed_run = (
                f"termsim flaky: the run fails (--termsim-flaky=fail): {len(failing)} "
                f"test{'s' * (len(failing) > 1)} passed only on a rerun, which hides an "
                f"intermittent failure, without a termsim_flaky marker that allows it: "
                f"{', '.join(failing[:5])}{more}. Mark a known one "
                f"{MARKER_USAGE}, or run with --termsim-flaky=report to only list them")


#: Which of a golden's outcomes in one test the summary keeps (the highest).
_GOLDEN_RANK = {"matched": 0, "written": 1, "updated": 1, "missing": 2, "differs": 2}


def _relative(path: Path, config: pytest.Config) -> Path:
    """``path`` as a person types it here: relative to the working directory
    when it is under it, else absolute (a path relative to the rootdir would
    not be found from another directory)."""
    try:
        return path.absolute().relative_to(Path.cwd())
    except ValueError:
        return path.absolute()
