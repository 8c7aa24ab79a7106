"""User-facing errors. Their message says what went wrong and what to do; the CLI prints it
without a traceback."""


class ClaimscopeError(Exception):
    """Base of every error claimscope reports to a user instead of crashing."""


class InputError(ClaimscopeError):
    """The user's input (file, claim, argument) cannot be used as given."""


class SourceUnavailableError(ClaimscopeError):
    """A remote source (Semantic Scholar, SerpAPI, a Qdrant server...) could not be reached or refused."""
