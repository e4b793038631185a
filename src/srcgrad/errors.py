"""srcgrad's exceptions: each names the construct, the user's file and line, and a way out."""


class UnsupportedSyntaxError(SyntaxError):
    """A construct the compiler cannot differentiate, located in the user's source."""

    def __init__(self, message, filename=None, lineno=None, col=None, line=None):
        loc = ""
        if filename is not None:
            loc = f"\n  File \"{filename}\", line {lineno}, column {(col or 0) + 1}"
            if line:
                loc += f"\n    {line.strip()}"
        super().__init__(message + loc, (filename, lineno, (col or 0) + 1, line))
        self.msg = message + loc


class NonDifferentiableError(TypeError):
    """A call to a function with no derivative rule and no Python source."""


# completes every refusal of an in-place change that a view or an alias would see
ALIAS_ADVICE = ("; srcgrad would compute gradients as if they were copies. Make the copy "
                "explicit (.copy() or np.array(...)).")
