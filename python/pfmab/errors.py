"""pfmab's errors: each message is the command line's one line (what is
wrong and where: file, line, key), without its "pfmab: error: "."""


class ExperimentError(ValueError):
    """An experiment pfmab refuses: a bad file, text, dict or keyword, or an
    output it may not write. Nothing was run and no file was written."""


class OutputError(ValueError):
    """A file that is not a readable pfmab output (missing, foreign, damaged,
    or of another format)."""


class PolicyError(ValueError):
    """A method of a Python algorithm (pfmab.Algorithm) returned what the
    engine cannot play: the message names the method, its client and the
    value."""
