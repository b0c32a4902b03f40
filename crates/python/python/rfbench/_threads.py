"""Thread control: ``set_num_threads``/``get_num_threads``, and the extension registered with
threadpoolctl so that ``threadpoolctl.threadpool_limits(n)`` limits it as it limits BLAS.

The Rust maps run on rayon pools that the extension sizes per call (its module ``threads``): an
estimator's ``n_jobs`` if given, else the count set here, else ``RAYON_NUM_THREADS`` or
``OMP_NUM_THREADS`` (which joblib's process workers set to their share of the cores), else every
core. threadpoolctl finds
libraries by the file names of the loaded shared objects; the controller below claims the
extension's own file (``_rfbench*.so``) and sets the count through the extension's functions,
so ``threadpool_limits(1)`` (as scikit-learn's own code and users' notebooks use it) reaches the
Rust work. The extension links OpenBLAS for its linear algebra (the wheel's bundled copy, or the
system's when built from source); threadpoolctl finds and limits that library by itself, beside
NumPy's.
"""

from . import __version__ as _version
from . import _rfbench


def set_num_threads(n):
    """Sets the threads of every call whose estimator has ``n_jobs=None``.

    Parameters
    ----------
    n : int or None
        A count from 1 to ``max_num_threads()`` (4 per core, at least 64: the work is
        CPU-bound), or None (or 0) for the default: ``RAYON_NUM_THREADS``, else
        ``OMP_NUM_THREADS``, else every core (either variable capped the same way).

    Returns
    -------
    int
        The previous setting (0 when it was the default).
    """
    n = 0 if n is None else int(n)
    if n < 0:
        raise ValueError(f"set_num_threads takes a count >= 1 or None, got {n}")
    if n >= 2**64:
        # The extension refuses counts above the cap, but this one would not reach it.
        cap = _rfbench.max_num_threads()
        raise ValueError(f"set_num_threads = {n} threads is too many: at most {cap}")
    return _rfbench.set_num_threads(n)


def max_num_threads():
    """The largest count ``set_num_threads`` and ``n_jobs`` take: 4 per core, at least 64."""
    return _rfbench.max_num_threads()


def get_num_threads():
    """The threads a call with ``n_jobs=None`` uses now."""
    return _rfbench.get_num_threads()


def _register_with_threadpoolctl():
    """Registers ``RfbenchController`` with threadpoolctl (3.4 or later has ``register``); a
    no-op where threadpoolctl is missing or older."""
    try:
        import threadpoolctl
    except ImportError:
        return None
    if not hasattr(threadpoolctl, "register") or not hasattr(threadpoolctl, "LibController"):
        return None

    class RfbenchController(threadpoolctl.LibController):
        """threadpoolctl's view of the extension's thread count."""

        user_api = "rfbench"
        internal_api = "rfbench"
        filename_prefixes = ("_rfbench",)

        def get_num_threads(self):
            return _rfbench.get_num_threads()

        def set_num_threads(self, num_threads):
            _rfbench.set_num_threads(int(num_threads))

        def get_version(self):
            return _version

    threadpoolctl.register(RfbenchController)
    return RfbenchController
