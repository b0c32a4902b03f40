"""Refusing a fit or a transform that would not fit in memory, before anything is allocated.

A Rust allocation that fails aborts the process (and a notebook's kernel with it), so the
estimators estimate what a call will allocate and raise ``MemoryError`` instead when it is more
than the process may allocate now, and ``ValueError`` when the byte count does not even fit in an
address (``sys.maxsize``). What the process may allocate is the smallest of (``limit_bytes``):

* the machine's available memory (``MemAvailable`` of ``/proc/meminfo``);
* the address space left under ``RLIMIT_AS`` (``ulimit -v``): the limit less ``VmSize``, since
  that limit counts reserved address space, not memory touched;
* the memory left under the process's cgroup limit (v2 ``memory.max``, v1
  ``memory.limit_in_bytes``) less its usage, reclaimable page cache (``inactive_file``) not
  counted as used.

A source that cannot be read is left out; with none, the estimate is only checked for overflow.

The estimate is an order of magnitude, not an accounting: the map's own state from the component
registry's size model (the one the runner's memory check reads, ``_rfbench.map_size``), twice
over for a fit (the draws and a working copy: Nystroem's eigendecomposition, the attributes
copied out to Python), plus per thread ``(degree + 4) D`` values of working buffers for dense
features (a Tensor Sketch row's ``degree`` count sketches and its spectra), and the features
themselves for a transform. Its job is to stop absurd requests (``D = 2^31``) with an error that
says what they would cost; a request near the limit may still pass and fail later.
"""

import os
import resource
import sys

_GIB = 2.0**30


def available_bytes():
    """``MemAvailable`` from ``/proc/meminfo`` in bytes, or None where it cannot be read."""
    return _field_kib("/proc/meminfo", "MemAvailable:")


def address_space_bytes():
    """The address space ``RLIMIT_AS`` leaves this process (its soft limit less ``VmSize``), or
    None without a limit."""
    try:
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (OSError, ValueError):  # pragma: no cover - every Linux has RLIMIT_AS
        return None
    if soft == resource.RLIM_INFINITY:
        return None
    used = _field_kib("/proc/self/status", "VmSize:")
    return max(0, soft - (used or 0))


def cgroup_bytes():
    """The memory the process's cgroup (v2, else v1) has left, or None without a limit."""
    for version, path in _cgroup_paths():
        names = _CGROUP_FILES[version]
        limit = _read_int(os.path.join(path, names[0]))
        usage = _read_int(os.path.join(path, names[1]))
        if limit is None or usage is None:
            continue
        if limit >= _NO_LIMIT:
            return None
        reclaimable = _stat(os.path.join(path, "memory.stat"), names[2]) or 0
        return max(0, limit - max(0, usage - reclaimable))
    return None


def limit_bytes():
    """``(bytes, what limits them)``: the least the sources of the module doc leave, or
    ``(None, None)`` when none can be read."""
    sources = (
        (available_bytes(), "available (MemAvailable in /proc/meminfo)"),
        (address_space_bytes(), "left under the address-space limit (RLIMIT_AS, ulimit -v)"),
        (cgroup_bytes(), "left under the cgroup's memory limit"),
    )
    known = [source for source in sources if source[0] is not None]
    return min(known, key=lambda source: source[0]) if known else (None, None)


# A cgroup version -> its (limit, usage, reclaimable page cache in memory.stat) names.
_CGROUP_FILES = {
    2: ("memory.max", "memory.current", "inactive_file"),
    1: ("memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file"),
}
# v1 reports "no limit" as a page-rounded 2^63 - 1; v2 as "max" (read as None, then this).
_NO_LIMIT = 2**62
_CGROUP_ROOT = "/sys/fs/cgroup"


def _cgroup_paths():
    """``(version, directory)`` candidates of the process's memory cgroup: its path under the
    mount, then the mount itself (inside a cgroup namespace or a container the mount is the
    process's own cgroup)."""
    try:
        with open("/proc/self/cgroup") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        if parts[0] == "0" and parts[1] == "":
            out += [(2, _CGROUP_ROOT + parts[2]), (2, _CGROUP_ROOT)]
        elif "memory" in parts[1].split(","):
            root = os.path.join(_CGROUP_ROOT, "memory")
            out += [(1, root + parts[2]), (1, root)]
    return out


def _read_int(path):
    try:
        with open(path) as f:
            text = f.read().strip()
    except OSError:
        return None
    if text == "max":
        return _NO_LIMIT
    try:
        return int(text)
    except ValueError:
        return None


def _stat(path, key):
    """The value of ``key`` in a cgroup's ``memory.stat``, or None."""
    try:
        with open(path) as f:
            for line in f:
                name, _, value = line.partition(" ")
                if name == key:
                    return int(value)
    except (OSError, ValueError):
        return None
    return None


def _field_kib(path, key):
    """A ``key: N kB`` line of a /proc file in bytes, or None."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(key):
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
    ``MemoryError`` past what the process may allocate (``limit_bytes``)."""
    if n_bytes > sys.maxsize:
        raise ValueError(
            f"{name}: {what} would need {n_bytes} bytes, more than an address can count "
            f"({sys.maxsize}): lower n_components (or the number of rows)"
        )
    limit, source = limit_bytes()
    if limit is not None and n_bytes > limit:
        raise MemoryError(
            f"{name}: {what} would need about {n_bytes / _GIB:.3g} GiB, more than the "
            f"{limit / _GIB:.3g} GiB {source}: lower n_components (or transform fewer rows "
            "at a time)"
        )
