"""The one exception tree of assay.

Every error assay raises on purpose is an ``AssayError``. The tree splits on whose move it
is: a ``UserError`` is fixed by the person at the keyboard (a typo, a missing key, a bad
file) and is shown as one line with no traceback; a ``RunError`` happened while a run was
working (a provider failed, a page could not be fetched, a budget ran out) and is recorded
in the run's event log before it reaches the user.

    AssayError
    ├── UserError                       exit code 2
    │   ├── ConfigError                 a bad config file, setting or flag value
    │   ├── MissingKeyError             a provider key is not set (names the variable)
    │   ├── BadInputError               an argument or input file that cannot be used
    │   ├── RunNotFoundError            no run matches the id or prefix
    │   ├── AmbiguousRunError           a run-id prefix that matches several runs
    │   ├── UnsafePathError             a path that would escape its directory
    │   ├── InstallError                a file assay runs on is missing or altered
    │   └── UnavailableError            a service or address the command needs is not
    │                                   there now: a broker that does not answer, a port
    │                                   in use (exit 8: worth retrying as it is)
    └── RunError                        exit code 1
        ├── ProviderError               a search or model provider failed
        │   ├── models.ModelTimeout     a model gave no reply within the call's deadline
        │   ├── models.PromptTooLarge   the instructions alone overflow the context window
        │   └── models.InvalidOutput    no valid output after the bounded retries
        ├── FetchError                  a source could not be fetched
        │   └── PolicyViolation         a fetch the politeness/safety policy refuses
        ├── BudgetExhausted             a token, call, fetch or time budget ran out (exit 3)
        ├── RunCancelled                the run was interrupted (exit 130)
        └── IntegrityError              a stored record or report fails its checks (exit 4)

``EXIT_CODES`` maps each class to its exit code; the README documents the same table.
"""

from __future__ import annotations


class AssayError(Exception):
    """Base of every error assay raises on purpose."""

    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class UserError(AssayError):
    """Something the user can fix: shown as one line, never with a traceback."""

    exit_code = 2


class ConfigError(UserError):
    """A config file, setting or flag holds a value that cannot be used."""


class MissingKeyError(UserError):
    """A provider needs a key that is not set anywhere."""

    def __init__(self, variable: str, purpose: str = "") -> None:
        what = f" for {purpose}" if purpose else ""
        super().__init__(
            f"missing key{what}: set the environment variable {variable} "
            f"or run `assay keys set {variable}`"
        )
        self.variable = variable


class BadInputError(UserError):
    """An argument or an input file that cannot be used as given."""


class RunNotFoundError(UserError):
    """No run in the store matches the given id or prefix."""


class AmbiguousRunError(UserError):
    """A run-id prefix matches more than one run."""


class UnsafePathError(UserError):
    """A path derived from outside input would leave the directory it belongs in."""


class InstallError(UserError):
    """A file assay needs to run (the embedding model, its tokenizer) is missing or is not
    the file it should be: fixed by reinstalling, or by pointing the setting elsewhere."""


class UnavailableError(UserError):
    """Something outside assay that the command needs is not there right now: the broker
    does not answer, the port is taken. Its own exit code, because the same command can
    work later unchanged (a supervisor may restart a worker on 8, never on 2)."""

    exit_code = 8


class RunError(AssayError):
    """Something went wrong while a run was working."""

    exit_code = 1


class ProviderError(RunError):
    """A search or model provider returned an error or an unusable answer."""


class FetchError(RunError):
    """A source could not be fetched; the run skips it and goes on."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"{url}: {reason}")
        self.url = url
        self.reason = reason


class PolicyViolation(FetchError):
    """The fetch policy refuses this request (scheme, address, robots, type or size)."""


class BudgetExhausted(RunError):
    """A budget ran out; the run ends with a partial result and this reason."""

    exit_code = 3
    report: str | None = None
    """Where the partial report was written, once the run has written it."""


class RunCancelled(RunError):
    """The run was interrupted before it finished; it can be resumed."""

    exit_code = 130


class IntegrityError(RunError):
    """A stored record or a report fails the checks code can repeat."""

    exit_code = 4


EXIT_CODES: dict[type[AssayError], int] = {
    AssayError: AssayError.exit_code,
    UserError: UserError.exit_code,
    UnavailableError: UnavailableError.exit_code,
    RunError: RunError.exit_code,
    BudgetExhausted: BudgetExhausted.exit_code,
    RunCancelled: RunCancelled.exit_code,
    IntegrityError: IntegrityError.exit_code,
}
