"""Refusing a fit or a transform that would not fit in memory, before anything is allocated.

A Rust allocation that fails aborts the process (and a notebook's kernel with it), so the
estimators estimate what a call will allocate and raise ``MemoryError`` instead when it is more
than the machine has available now (``MemAvailable`` of ``/proc/meminfo``; where there is no such
file the estimate is only checked for overflow), and ``ValueError`` when the byte count does not
even fit in an address (``sys.maxsize``).

The estimate is an order of magnitude, not an accounting: the map's own state from the component
registry's size model (the one the runner's memory check reads, ``_rfbench.map_size``), twice
over for a fit (the draws and a working copy: Nystroem's eigendecomposition, the attributes
copied out to Python), plus per thread ``(degree + 4) D`` values of working buffers for dense
features (a Tensor Sketch row's ``degree`` count sketches and its spectra), and the features
themselves for a transform. Its job is to stop absurd requests (``D = 2^31``) with an error that
says what they would cost; a request near the limit may still pass and fail later.
"""

import sys

_GIB = 2.0**30


def available_bytes():
    """``MemAvailable`` from ``/proc/meminfo`` in bytes, or None where it cannot be read."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def working_values(output_dim, degree, sparse):
    """Values of working buffers one thread needs for a map of ``output_dim`` dense features."""
    if sparse or output_dim is None:
        return 0
    return (degree + 4) * output_dim


def check(name, what, n_bytes):
    """Raises unless ``n_bytes`` can be allocated now: ``ValueError`` past ``sys.maxsize``,
    ``MemoryError`` past the available memory."""
    if n_bytes > sys.maxsize:
        raise ValueError(
            f"{name}: {what} would need {n_bytes} bytes, more than an address can count "
            f"({sys.maxsize}): lower n_components (or the number of rows)"
        )
    available = available_bytes()
    if available is not None and n_bytes > available:
        raise MemoryError(
            f"{name}: {what} would need about {n_bytes / _GIB:.3g} GiB, more than the "
            f"{available / _GIB:.3g} GiB available (MemAvailable in /proc/meminfo): lower "
            "n_components (or transform fewer rows at a time)"
        )
