"""What pfmab needs of the Python that imports it, said in one message: a
python3 first on PATH other than Debian's (a virtual environment without
system packages, a python.org or conda build) lacks Debian's packages, and
would otherwise stop at the first with a bare "No module named 'numpy'"."""

import importlib.util
import sys

# The modules pfmab uses, whether `import pfmab` needs them, and the Debian
# package that has each (tools/setup.sh installs them all).
MODULES = [("numpy", True, "python3-numpy"), ("pandas", False, "python3-pandas"),
           ("h5py", False, "python3-h5py"), ("matplotlib", False, "python3-matplotlib"),
           ("xarray", False, "python3-xarray"), ("tqdm", False, "python3-tqdm")]


def check():
    """Raises ImportError naming every module pfmab uses that this Python
    cannot import, if `import pfmab` needs one of them (only those are
    looked up otherwise: `import pfmab` pays 0.1 ms for it)."""
    if all(importlib.util.find_spec(name) for name, needed, _ in MODULES if needed):
        return
    missing = [(name, needed, package) for name, needed, package in MODULES
               if importlib.util.find_spec(name) is None]
    needed = [name for name, is_needed, _ in missing if is_needed]
    others = [name for name, is_needed, _ in missing if not is_needed]
    python = f"{sys.executable or 'python'} {sys.version.split()[0]}"
    raise ImportError(
        f"pfmab needs {', '.join(needed)}, which this Python ({python}) does not have"
        + (f" (nor {', '.join(others)}, which pfmab also uses)" if others else "")
        + ": use Debian's /usr/bin/python3, which has them once tools/setup.sh has installed "
        + ", ".join(package for _, _, package in missing)
        + " (docs/python.md, \"Setting up\")", name=needed[0])
