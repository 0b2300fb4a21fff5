"""The command line: ``rangefire rulesets | check | odds | resolve | demo | schema ...`` (design section 5).

Every command takes ``--json``. Without it the output is for people: Rich tables, every modifier with its
clause. Errors go to stderr on one line with a non-zero exit (2 bad input, 1 an attack the rules refuse); with
``--json`` they are JSON on stdout (``{"format", "error": {...}}``), usage errors included, with the same codes.
The library knows nothing of this package: each command reads its flags into the library's own values.
"""

from __future__ import annotations

import sys

#: The exit code of a command interrupted by Ctrl-C (128 + SIGINT, as a shell reports it).
INTERRUPTED = 130
#: The exit code of a command whose reader went away before it was done (``rangefire odds ... | head``): 128 +
#: SIGPIPE, as a shell reports any program stopped so; not 1, the code of an attack the rules refuse.
PIPE_CLOSED = 141


def _say_interrupted() -> None:
    """Ctrl-C before the command asked anything or wrote anything: one line on stderr (as at a prompt)."""
    if sys.stderr is not None:
        sys.stderr.write("\nrangefire: interrupted; nothing changed\n")
        sys.stderr.flush()


def _interrupted() -> NoReturn:
    _say_interrupted()
    raise SystemExit(INTERRUPTED)


def _pipe_closed() -> NoReturn:
    """The reader of standard output has gone: nothing more is printed, nothing is said (the reader asked for no
    more), and the exit is :data:`PIPE_CLOSED`. Output still buffered is dropped, not flushed at exit."""
    import contextlib
    import os

    with contextlib.suppress(OSError, ValueError, AttributeError):  # no file behind stdout: nothing to drop
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    raise SystemExit(PIPE_CLOSED)


try:  # Ctrl-C while the command line loads (a good part of a start): said in one line, not a traceback
    import inspect
    from collections.abc import Callable
    from typing import Any, NoReturn

    from rangefire.cli import advise, commands, compare, duel, moves, odds_table, schema, serve, sweep, table, turns  # noqa: F401  (register the commands on the app)
    from rangefire.cli.common import _emit, app
except KeyboardInterrupt:
    _interrupted()


def _interrupted_before_the_command(signum: int, frame: Any) -> NoReturn:
    """Ctrl-C while the option parser reads the arguments, before the command runs: the parser would take it for
    an abort (exit 1, "Aborted!"); it is said as any other Ctrl-C."""
    _interrupted()


def main() -> None:
    """Console-script entry point. Ctrl-C before the first prompt (while the command loads, its arguments are
    read, it reads its files and works) is one line and exit 130, as it is at a prompt; nothing is written before
    the work is done."""
    import signal
    import threading

    here = threading.current_thread() is threading.main_thread()
    before = signal.signal(signal.SIGINT, _interrupted_before_the_command) if here else None
    try:
        _main()
    finally:
        if before is not None:
            signal.signal(signal.SIGINT, before)


def _main() -> None:
    code = 0
    try:
        args = sys.argv[1:]
        _only_the_command_asked(args)
        if "--json" not in args[: args.index("--") if "--" in args else None]:
            try:
                app()
            except SystemExit as done:
                _flush()
                raise done from None
            _flush()
            return
        code = _json_main()
        _flush()
    except KeyboardInterrupt:
        _interrupted()
    except BrokenPipeError:
        _pipe_closed()
    sys.exit(code)


def _flush() -> None:
    """Standard output written out before the exit (a reader gone by then is said as such, not as an error the
    interpreter reports while it exits)."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _pipe_closed()


def _interruptible(callback: Callable[..., Any]) -> Callable[..., Any]:
    """The command, Ctrl-C within it said in one line with exit 130 (the option parser would exit 130 without a
    word). A prompt that catches it itself (the dice asked for) says the same.

    An option of one value given twice (the option parser keeps the last one without a word: ``--turns 1 ...
    --turns 20``) and an empty path (it reads ``.``) are refused before the command runs, in our words, with exit 2
    (:func:`rangefire.cli.common.check_words`).
    """
    import functools

    import typer

    if getattr(callback, "rangefire_interruptible", False):  # wrapped already (main run twice in one process)
        return callback

    @functools.wraps(callback)
    def run(*args: Any, _context: typer.Context, **kwargs: Any) -> Any:
        import signal
        import threading

        from rangefire.cli.common import check_words

        if threading.current_thread() is threading.main_thread():  # Ctrl-C is the command's own from here
            signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            check_words(_context.command, sys.argv[1:], bool(kwargs.get("as_json")))
            return callback(*args, **kwargs)
        except KeyboardInterrupt:
            _say_interrupted()
            raise typer.Exit(INTERRUPTED) from None
        except BrokenPipeError:  # the option parser would end it with exit 1
            _pipe_closed()

    # the option parser gives the command its context (the options it declares) through a parameter of its own
    signature = inspect.signature(callback, eval_str=True)
    params = [*signature.parameters.values(),
              inspect.Parameter("_context", inspect.Parameter.KEYWORD_ONLY, annotation=typer.Context)]
    run.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in params}
    run.rangefire_interruptible = True  # type: ignore[attr-defined]
    return run


def _only_the_command_asked(args: list[str]) -> None:
    """Leave the app only the command the arguments name: the option parser builds every registered command's
    options from its signature at each start (a fifth of a check's time after the imports), and a process
    runs one. Without a command named (``rangefire --help``, ``--version``, a misspelt name), all stay."""
    from typer.main import get_command_name

    # the app's own options take no value, so the first word that is not an option names the command
    first = next((a for a in args if not a.startswith("-")), None)
    named = [info for info in app.registered_commands
             if (info.name or get_command_name(info.callback.__name__ if info.callback else "")) == first]
    if named:
        for info in named:
            if info.callback is not None:
                info.callback = _interruptible(info.callback)
        app.registered_commands[:] = named
        return
    # The list of commands shows each one's first paragraph, and typer keeps its docstring's line breaks
    # there: every summary broke where the source line did, whatever the terminal's width. One line each.
    for info in app.registered_commands:
        if info.short_help is None and info.callback is not None and info.callback.__doc__:
            first = inspect.cleandoc(info.callback.__doc__).split("\n\n")[0]
            info.short_help = " ".join(first.split())


def _json_main() -> int:
    """The app run for a program (``--json``): a usage error (a missing option, a bad value, an unknown
    command) is JSON on stdout like every other error, with the exit code the option parser gives it."""
    import typer

    # the option parser's error classes, found from a public one (typer may carry its own copy of click)
    usage_error: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")
    try:
        code = app(standalone_mode=False)
    except typer.Abort:
        return 1
    except usage_error as exc:
        param = getattr(exc, "param", None)
        option = param.opts[0] if param is not None and getattr(param, "opts", None) else None
        message = exc.format_message()  # type: ignore[attr-defined]  # every ClickException has it
        _emit({"error": {"kind": "usage", "message": message, "path": None, "clause": None,
                         "parameter": option}})
        return int(getattr(exc, "exit_code", 2))
    return code if isinstance(code, int) else 0


__all__ = ["app", "main"]
