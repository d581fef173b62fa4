"""Digests of simdscan's results over the tests' path and layout catalogue, to compare two builds bit for bit.

    python tests/build_digest.py OUT.json            # the digests of the simdscan that Python imports
    python tests/build_digest.py --compare A.json B.json

Every op of the family, every dtype it takes, both directions, both modes, every path of reference.PATHS and layout
of reference.LAYOUTS, outputs at odd offsets and strides, summed-area tables, and thread counts 1, 2 and 4 on the
paths the thread pool splits. The data holds NaN, infinities and signed zeros where the dtype has them.

A NaN's sign and payload are compared apart: where a NaN from 0 * inf (negative on x86) meets an input's positive NaN,
a product keeps the sign of the operand the compiler put first, which differs between builds (complex products run
scalar) and, in f38b0fb, between the chained scan's two paths (float64 products along few long lines on 4 threads
differ between two runs of one build).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path as FilePath

import numpy as np

if __name__ == "__main__" and sys.argv[1:2] != ["--compare"]:
    sys.path.insert(0, str(FilePath(__file__).resolve().parent))
    import simdscan
    from reference import LAYOUTS, PATHS, SUPPORTED_DTYPES, apply_layout


def ops():
    """(function name, keywords, dtypes) of every scan of tests/ops.py and each keyword set that picks other kernels,
    over the dtypes it computes in as they are: not those it converts (bool sums count in int64, integers' log-sum-exp
    is float64's) or that have nothing to skip or compensate (integers)."""
    from ops import SCANS

    def computed_as_is(scan, kw, dtype):
        if not scan.takes(dtype) or scan.result_dtype(dtype) != dtype:
            return False
        return dtype.kind in "fc" or not (scan.skips_nan or kw.get("compensated"))

    return [(scan.name, kw, [d for d in SUPPORTED_DTYPES if computed_as_is(scan, kw, d)])
            for scan in SCANS for kw in scan.variants()]


def values(rng, shape, dtype, op):
    """Values of ``dtype`` for ``op``, with special values sprinkled in where the dtype has them."""
    size = int(np.prod(shape))
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.kind in "iu":
        low = 0 if dtype.kind == "u" else -3
        return rng.integers(low, 4, size=shape).astype(dtype)
    if op == "cumprod" or op == "nancumprod":
        real = 1.0 + 1e-3 * rng.uniform(-1, 1, size)
    else:
        real = rng.uniform(-3, 3, size)
    if dtype.kind == "c":
        real = real + 1j * rng.uniform(-3, 3, size) * (1e-3 if "prod" in op else 1.0)
    special = rng.random(size)
    real = np.where(special < 0.002, np.nan, real)
    real = np.where((special >= 0.002) & (special < 0.003), -0.0, real)
    real = np.where((special >= 0.003) & (special < 0.0035), np.inf, real)
    return real.reshape(shape).astype(dtype)


def digest(result) -> str:
    """'bits/values': a digest of the result's bytes, and one with every NaN made the same NaN (a NaN's sign and
    payload follow the operand order the compiler chose for a product of two NaNs)."""
    bits, values = hashlib.sha1(), hashlib.sha1()
    for part in result if isinstance(result, tuple) else (result,):
        part = np.ascontiguousarray(part)
        for h in (bits, values):
            h.update(part.dtype.str.encode())
        bits.update(part.tobytes())
        if part.dtype.kind in "fc":
            part = part.copy()
            reals = part.view(part.real.dtype) if part.dtype.kind == "c" else part
            reals[np.isnan(reals)] = np.nan
        values.update(part.tobytes())
    return f"{bits.hexdigest()[:16]}/{values.hexdigest()[:16]}"


def odd_out(shape, dtype, offset):
    """An out= view ``offset`` bytes into a buffer, every axis stepped by 2 and the last reversed."""
    itemsize = np.dtype(dtype).itemsize
    padded = tuple(2 * s for s in shape)
    raw = np.zeros(int(np.prod(padded)) * itemsize + offset + 64, dtype=np.uint8)
    base = raw[offset:offset + int(np.prod(padded)) * itemsize].view(dtype).reshape(padded)
    return base[tuple(slice(None, None, 2) for _ in shape[:-1]) + (slice(None, None, -2),)]


def cases():
    rng = np.random.default_rng(20261128)
    small = [p for purpose in ("exact", "kernels") for p in PATHS[purpose]]
    for name, kw, dtypes in ops():
        for dtype in dtypes:
            for path in small:
                data, axis = path.build(lambda shape: values(rng, shape, dtype, name))
                for direction in ("increasing", "decreasing"):
                    for exclusive in (False, True):
                        yield (f"{name}{kw} {dtype} {path.name} {direction} excl={exclusive}",
                               lambda: getattr(simdscan, name)(data, axis, direction=direction, exclusive=exclusive,
                                                               **kw))
            base = values(rng, (9, 70, 5), dtype, name)
            for layout in LAYOUTS:
                data = apply_layout(base, layout)
                for axis in (None, 0, 1, 2):
                    for direction in ("increasing", "decreasing"):
                        yield (f"{name}{kw} {dtype} layout={layout} axis={axis} {direction}",
                               lambda: getattr(simdscan, name)(data, axis, direction=direction, **kw))
            if "return_indices" in kw:
                continue
            for offset in (1, 3, 8, 24, 40) if dtype.itemsize > 1 else (1,):
                if offset % dtype.alignment:
                    continue
                for axis in (0, 1):
                    for exclusive in (False, True):
                        def into_odd(data=base[:, :, 0], axis=axis, exclusive=exclusive, offset=offset):
                            out = odd_out(data.shape, dtype, offset)
                            getattr(simdscan, name)(data, axis, exclusive=exclusive, out=out, **kw)
                            return out.copy()
                        yield f"{name}{kw} {dtype} out+{offset} axis={axis} excl={exclusive}", into_odd
    for dtype in ("float32", "float64", "int32", "uint8"):
        image = values(rng, (300, 257), np.dtype(dtype), "cumsum")
        for axes in ((0, 1), (1, 0)):
            for exclusive in (False, True):
                yield (f"table {dtype} {axes} excl={exclusive}",
                       lambda: simdscan.cumsum(image, axis=axes, exclusive=exclusive))
                if dtype == "uint8":
                    yield (f"table uint8->int32 {axes} excl={exclusive}",
                           lambda: simdscan.cumsum(image, axis=axes, exclusive=exclusive, dtype=np.int32))
    for path in PATHS["threaded"]:
        for name, kw in (("cumsum", {}), ("cumsum", {"compensated": True}), ("cumprod", {}), ("cummax", {}),
                         ("cummin", {"return_indices": True}), ("logcumsumexp", {}), ("nancumsum", {})):
            for dtype in (np.dtype("float32"), np.dtype("float64"), np.dtype("int32")):
                if (name == "logcumsumexp" or "compensated" in kw or name == "nancumsum") and dtype.kind != "f":
                    continue
                data, axis = path.build(lambda shape: values(rng, shape, dtype, name))
                for direction, exclusive in (("increasing", False), ("decreasing", True)):
                    for threads in (1, 2, 4):
                        def threaded(data=data, axis=axis, direction=direction, exclusive=exclusive,
                                     threads=threads, name=name, kw=kw):
                            simdscan.set_num_threads(threads)
                            try:
                                return getattr(simdscan, name)(data, axis, direction=direction,
                                                               exclusive=exclusive, **kw)
                            finally:
                                simdscan.set_num_threads(1)
                        yield f"{name}{kw} {dtype} {path.name} {direction} excl={exclusive} threads={threads}", threaded


def main(argv):
    if argv[0] == "--compare":
        a, b = (json.loads(FilePath(p).read_text()) for p in argv[1:3])
        missing = sorted(set(a) ^ set(b))
        in_bits = sorted(k for k in a if k in b and a[k] != b[k])
        in_values = [k for k in in_bits if a[k].split("/")[-1] != b[k].split("/")[-1]]
        for k in in_values[:50]:
            print("differs:", k)
        print(f"{len(a)} cases; {len(in_bits)} differ in their bits, {len(in_values)} beyond the signs and payloads "
              f"of NaN; {len(missing)} in one file only")
        return 1 if in_values or missing else 0
    simdscan.set_num_threads(1)
    results = {}
    for label, call in cases():
        try:
            results[label] = digest(call())
        except (TypeError, ValueError) as error:
            results[label] = f"{type(error).__name__}"
    FilePath(argv[0]).write_text(json.dumps(results, indent=0, sort_keys=True))
    print(f"{len(results)} cases, isa {simdscan.isa()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
