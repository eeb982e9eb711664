"""pytest plugin: every session a test spawns is recorded; failures keep theirs.

Registered through the ``pytest11`` entry point, so installing termsim is
enough. While a test runs, ``termsim.spawn()`` records to a file named after
the test in ``--termsim-dir`` (default ``.termsim`` under the rootdir). When
the test fails, its recordings stay and the failure report gets a "termsim"
section: each recording's path, the wait that failed, the final screen, and
the commands that replay it. When it passes they are deleted, unless
``--termsim-keep=all``; ``--termsim-keep=none`` turns recording off.

Retries never erase evidence: every attempt records to its own file, and a
failed attempt's files are kept and reported even when a rerun passes.
Names carry the test id and an attempt number, created exclusively, so
pytest-xdist workers never collide. Only public pytest hooks are used, and
termsim's own public hook (:func:`termsim.record_sessions`).

The ``termsim_recordings`` fixture gives a test the paths its sessions
recorded to so far (to attach them, or replay them in the same test).

Hunting flakes:

* ``--termsim-shake=N``: after a test passes, its body runs N more times,
  each ``spawn()`` answered by a replay of the matching recording played as
  a variant that could physically have happened (``termsim.replay.shake``). A
  variant that fails the test fails it, with the smallest variant in words
  and the line that replays it. ``--termsim-shake-variant=TEXT`` runs one
  given variant.
* Reruns (pytest-rerunfailures, or any plugin that reports a failed attempt
  as "rerun") never hide a failure: a test that failed and then passed is
  listed in a "termsim flaky" summary with both attempts' recordings and
  their diff. ``--termsim-flaky=fail`` fails the run when any test needed a
  rerun, unless it carries ``@pytest.mark.termsim_flaky(reason=...,
  until="YYYY-MM-DD")`` and that date has not passed.

Around each test it also sets, as context for the sessions the test starts,
golden screens (``--termsim-update``), hygiene (``--termsim-hygiene``) and
the combination of a test matrix (``@pytest.mark.termsim(profiles=...,
sizes=...)``, ``--termsim-profiles``), which ``pytest_generate_tests``
makes one test each.

Why one module past 500 lines: pytest loads a plugin's hooks from the one
module its entry point names; what each hook does beyond pytest's plumbing
lives elsewhere (``engine.settings``, ``replay.shake``, ``replay.evidence``).
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
from typing import Any

import pytest

from .engine import settings
from .engine.settings import golden_screens, record_sessions
from .errors import RecordingError, TermsimError
from .replay.evidence import describe_recordings, expired

_KEY = pytest.StashKey[list[Path]]()
#: The recordings of the sessions the test's function-scoped fixtures started.
_FIXTURE_KEY = pytest.StashKey[list[Path]]()
#: Whether this attempt's setup or call failed (its fixtures' files stay).
_FAILED_PHASE = pytest.StashKey[bool]()
#: The goldens a test used: (path, outcome).
_GOLDENS = pytest.StashKey[list[tuple[str, str]]]()
#: Every attempt of a test so far: (outcome, its recordings).
_ATTEMPTS = pytest.StashKey[list[tuple[str, list[Path]]]]()


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
        "--termsim-flaky", default="report", choices=("report", "fail"),
        help="a test that passed only on a rerun: list it (default), or also fail the run "
        "unless it is marked termsim_flaky(reason=..., until=...) and not expired",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "termsim_flaky(reason, until): this test is known to need reruns until "
        "the date (YYYY-MM-DD); --termsim-flaky=fail lets it pass until then")
    config.addinivalue_line(
        "markers", "termsim(profiles=None, sizes=None): run the test once per terminal "
        "profile and size; its sessions take them unless they say otherwise")
    if not hasattr(config, "workerinput"):  # xdist workers report to the controller
        config.pluginmanager.register(_Summary(config), "termsim-summary")
    if config.getoption("--termsim-keep") != "none":
        _check_directory(config)


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
        from .emulator.profiles import PROFILES

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
    item.stash[_FAILED_PHASE] = False
    if _ATTEMPTS not in item.stash:
        # This run's first attempt: the files of an earlier run of this test
        # are stale evidence next to the new ones, so they go.
        item.stash[_ATTEMPTS] = []
        if _recording(item.config):
            _remove_stale(_directory(item.config), _safe(item.nodeid))


def _remove_stale(directory: Path, stem: str) -> None:
    """Delete ``stem.tsr`` and ``stem-N.tsr`` (an earlier run's attempts)."""
    own = re.compile(re.escape(stem) + r"(-[0-9]+)?\.tsr")
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
    anyio's runner (which wraps the fixture next) runs this wrapper."""
    item = request.node
    func = fixturedef.func
    if fixturedef.scope != "function" or not isinstance(item, pytest.Item) \
            or inspect.ismethod(func) or not (
                inspect.iscoroutinefunction(func) or inspect.isasyncgenfunction(func)):
        return (yield)
    with _test_settings(item, _FIXTURE_KEY):
        values = settings.current()
    fixturedef.func = settings.carried(func, values)  # type: ignore[misc]
    try:
        return (yield)
    finally:
        fixturedef.func = func  # type: ignore[misc]


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
def _test_settings(item: pytest.Item, key: pytest.StashKey[list[Path]]) -> Iterator[None]:
    """What the sessions of a test (or of its fixtures: ``key``) start in:
    goldens, hygiene, the matrix combination, and recording to files
    listed under ``key``."""
    hygiene = bool(item.config.getoption("--termsim-hygiene"))
    callspec = getattr(item, "callspec", None)
    matrix = callspec.params.get(MATRIX_FIXTURE) if callspec is not None else None
    keep = _recording(item.config)
    made = item.stash.setdefault(key, [])
    with _goldens(item), settings.check_hygiene(hygiene), \
            settings.matrix_combination(matrix), \
            record_sessions(_allocator(item, made) if keep else None):
        yield


def _recorded_call(item: pytest.Item) -> Generator[None, None, None]:
    __tracebackhide__ = True
    with _test_settings(item, _KEY):
        result = yield
    if _recording(item.config):
        _shake(item, item.stash[_KEY])
    return result


def _shake(item: pytest.Item, made: list[Path]) -> None:
    """Run a passed test's body against variants of its recordings (see above)."""
    __tracebackhide__ = True
    from .replay.shake import Shaker, parse_variants, variant_text

    config = item.config
    count = config.getoption("--termsim-shake")
    given = config.getoption("--termsim-shake-variant")
    if not (count or given):
        return
    if item.stash.get(_FIXTURE_KEY, []):
        # The body would run again against the fixtures' live sessions, in
        # whatever state the first run left them: no variant of anything.
        item.stash[_SHAKEN_RUNS] = 0
        item.stash[_UNSHAKEN] = "its fixtures start sessions, which shake does not replay"
        return
    if not made:
        return
    try:
        shaker = Shaker([p.absolute() for p in made], item.runtest, name=item.nodeid,
                        shown=[str(_relative(p, config)) for p in made])
    except RecordingError as exc:
        # termsim lost its own evidence: the test was not shaken, and a pass
        # would say it had been.
        raise TermsimError(f"termsim could not shake {item.nodeid}: its recording cannot "
                           f"be read: {exc}") from None
    unreplayable = shaker.replayable()
    if unreplayable is not None:
        item.stash[_SHAKEN_RUNS] = 0
        item.stash[_UNSHAKEN] = (
            "it fails against its own unchanged recording (it checks something a replay "
            f"does not have): {type(unreplayable).__name__}: {unreplayable}").split("\n")[0]
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
    attempts.append((outcome, fixtures + made))
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
    failed_before = [paths for result, paths in attempts[:-1] if result in ("rerun", "failed")]
    if report.passed and failed_before:
        report.user_properties.append(("termsim_flaky", _flaky(item, failed_before[-1],
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
        report.sections.append(("termsim recordings", describe_recordings(
            fixtures + made, lambda path: _relative(path, item.config))))
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
    if not fixtures:
        return report
    # pytest-rerunfailures reports a failed attempt it will retry as "rerun".
    failing = report.failed or str(report.outcome) == "rerun"
    if failing and report.when == "setup":
        # An attempt that ended in its setup (a fixture's wait failed): a
        # rerun that passes makes the test flaky, with these as evidence.
        item.stash.setdefault(_ATTEMPTS, []).append((str(report.outcome), list(fixtures)))
    failed = failing or item.stash.get(_FAILED_PHASE, False)
    item.stash[_FAILED_PHASE] = failed
    if failing:
        report.sections.append(("termsim recordings", describe_recordings(
            fixtures, lambda path: _relative(path, item.config))))
    elif report.when == "teardown" and not failed \
            and item.config.getoption("--termsim-keep") != "all":
        for path in fixtures:
            try:
                path.unlink()
            except OSError:
                pass
    return report


def _flaky(item: pytest.Item, failed: list[Path], passed: list[Path]) -> dict[str, Any]:
    """What the summary says of a test that passed only on a rerun."""
    from .replay.diff import diff

    config = item.config
    info: dict[str, Any] = {
        "nodeid": item.nodeid,
        "failed": [str(_relative(p, config)) for p in failed],
        "passed": [str(_relative(p, config)) for p in passed],
        "diff": "",
        "allowed": None,
    }
    if failed and passed:
        try:
            info["diff"] = diff(passed[0], failed[0]).summary()
        except RecordingError as exc:
            info["diff"] = f"(no diff: {exc})"
    marker = item.get_closest_marker("termsim_flaky")
    if marker is not None:
        reason = str(marker.kwargs.get("reason", marker.args[0] if marker.args else ""))
        until = marker.kwargs.get("until", marker.args[1] if len(marker.args) > 1 else None)
        info["allowed"] = {"reason": reason, "until": None if until is None else str(until)}
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
        #: Every golden used in the run, and what became of it.
        self.goldens: dict[str, str] = {}
        #: The test files that ran (their .screens directories are checked).
        self.test_files: set[str] = set()
        #: (test file, function) of tests that failed or were skipped, which
        #: may not have reached their goldens: those are not "unused".
        self.unfinished: set[tuple[str, str]] = set()
        #: Why --termsim-flaky=fail failed the run ("" if it did not).
        self.failed_run = ""

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed or report.skipped:
            function = report.nodeid.split("::")[-1].split("[")[0]
            self.unfinished.add((str(report.fspath), function))
        if report.when != "call":
            return
        self.test_files.add(report.fspath)
        for name, value in report.user_properties:
            if name == "termsim_golden" and isinstance(value, tuple | list) and len(value) == 2:
                path, outcome = value
                # "differs" or "missing" wins over a rerun's "matched" in the count.
                if self.goldens.get(str(path)) not in ("differs", "missing"):
                    self.goldens[str(path)] = str(outcome)
            if name == "termsim_flaky" and isinstance(value, dict):
                self.flaky.append(value)
            elif name == "termsim_shaken" and isinstance(value, int):
                self.shaken.append(value)
            elif name == "termsim_unshaken" and isinstance(value, str):
                self.unshaken.append(value)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        self._golden_summary(terminalreporter)
        if self.shaken:
            terminalreporter.write_line(
                f"termsim shake: {len(self.shaken)} passing tests ran {sum(self.shaken)} "
                "variants of their recordings")
        if self.unshaken:
            terminalreporter.write_line(
                f"termsim shake: {len(self.unshaken)} tests were not shaken:")
            for line in self.unshaken[:10]:
                terminalreporter.write_line(f"  {line[:240]}")
        if not self.flaky:
            return
        terminalreporter.section("termsim flaky")
        for info in self.flaky:
            why = expired(info["allowed"])
            status = "allowed: " + info["allowed"]["reason"] if why is None else why
            terminalreporter.write_line(
                f"{info['nodeid']}: failed, then passed on a rerun ({status})")
            for path in info["failed"]:
                terminalreporter.write_line(f"  failed attempt: {path}")
            for path in info["passed"]:
                terminalreporter.write_line(f"  passing attempt: {path}")
            if info["diff"]:
                terminalreporter.write_line(f"  diff (A: passing, B: failed): {info['diff']}")
            if info["failed"] and info["passed"]:
                terminalreporter.write_line(
                    f"  look: termsim diff {info['passed'][0]} {info['failed'][0]}")
        if self.failed_run:  # the last line before the counts, which show no failure
            terminalreporter.write_line(self.failed_run, red=True, bold=True)

    def _golden_summary(self, terminalreporter: Any) -> None:
        counts = Counter(self.goldens.values())
        changed = [f"{counts[k]} {k}" for k in ("written", "updated") if counts[k]]
        if changed:
            terminalreporter.write_line(f"termsim goldens: {', '.join(changed)}, "
                                        f"{counts['matched']} unchanged (--termsim-update)")
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
        used = {os.path.realpath(p) for p in self.goldens}
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
            self.failed_run = (
                f"termsim flaky: the run fails (--termsim-flaky=fail): {len(failing)} "
                f"test{'s' * (len(failing) > 1)} passed only on a rerun, without a "
                f"termsim_flaky marker that allows it: {', '.join(failing[:5])}")


def _relative(path: Path, config: pytest.Config) -> Path:
    """``path`` as a person types it here: relative to the working directory
    when it is under it, else absolute (a path relative to the rootdir would
    not be found from another directory)."""
    try:
        return path.absolute().relative_to(Path.cwd())
    except ValueError:
        return path.absolute()
