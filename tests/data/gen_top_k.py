"""Generates tests/data/top_k.txt: JAX 0.10.2 (CPU) reference results for jax.lax.top_k.

Run:
    pip install "jax[cpu]==0.10.2" numpy
    python3 tests/data/gen_top_k.py > tests/data/top_k.txt

One case per line:
    <dtype> <shape> <k> <axis> | <input> | <output values> | <output indices>
- shape: comma-separated dims, or "-" for 0-d.
- axis: the axis= keyword passed to top_k, or "-" when not given (default -1).
- input / values / indices: space-separated, C order; an empty list is "-".
- integers in decimal; bool as 0/1; float32/float16/bfloat16 as the hex of their raw
  bits in the dtype's own width (e.g. 0x7fc00000, 0x3c00), so NaN payloads and -0.0
  are exact. Indices are int32.
Lines starting with "#" are comments.

Facts observed with JAX 0.10.2 on CPU (checked when writing this script):
- Ordering is IEEE totalOrder, descending: +NaN (bigger payload first) > +inf > ... >
  +0.0 > -0.0 > ... > -inf > -NaN (bigger payload last). -0.0 sorts strictly below +0.0.
  NaN bits (including signalling payloads) are passed through unchanged for float32 and
  float16. bfloat16 is the exception on CPU: XLA sorts it as f32 with a comparator that
  converts back to bf16, so every NaN is output canonical (0x7fc0 or 0xffc0, sign kept) and
  all NaNs of one sign tie (lower index first); the ordering is otherwise totalOrder.
- Equal values: the lower index comes first.
- Inputs JAX rejects (k > axis length, 0-d input) get no line.
Deterministic: fixed seeds, no time/OS dependent randomness.
"""
import sys

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax import lax

jax.config.update("jax_enable_x64", False)

NP_DTYPES = {
    "float32": np.float32,
    "float16": np.float16,
    "bfloat16": ml_dtypes.bfloat16,
    "int32": np.int32,
    "uint32": np.uint32,
    "int8": np.int8,
    "uint8": np.uint8,
    "int16": np.int16,
    "uint16": np.uint16,
    "bool": np.bool_,
}
FLOATS = ("float32", "float16", "bfloat16")
BITS = {"float32": np.uint32, "float16": np.uint16, "bfloat16": np.uint16}


def fmt(a, dt):
    a = np.asarray(a)
    if a.size == 0:
        return "-"
    if dt in FLOATS:
        width = 8 if dt == "float32" else 4
        raw = np.ascontiguousarray(a).view(BITS[dt]).ravel()
        return " ".join("0x%0*x" % (width, int(v)) for v in raw)
    return " ".join(str(int(v)) for v in a.ravel())


def case(dt, x, k, axis=None):
    """Runs top_k on numpy array x (already of dtype dt); prints one line, or nothing on error."""
    x = np.asarray(x, dtype=NP_DTYPES[dt])
    try:
        if axis is None:
            v, i = lax.top_k(jnp.asarray(x), k)
        else:
            v, i = lax.top_k(jnp.asarray(x), k, axis=axis)
    except Exception as e:  # rejected by JAX: no line
        print("rejected: %s shape=%s k=%s axis=%s: %s"
              % (dt, x.shape, k, axis, str(e).splitlines()[0]), file=sys.stderr)
        return
    v = np.asarray(v)
    i = np.asarray(i)
    assert v.dtype == x.dtype and i.dtype == np.int32, (v.dtype, i.dtype)
    shape = ",".join(str(d) for d in x.shape) if x.ndim else "-"
    ax = "-" if axis is None else str(axis)
    print("%s %s %d %s | %s | %s | %s" % (dt, shape, k, ax, fmt(x, dt), fmt(v, dt), fmt(i, "int32")))


def small_ints(rng, dt, shape):
    """Small integer-valued data with many duplicates (so ties occur)."""
    n = int(np.prod(shape))
    span = max(2, n // 3)  # about 3 copies of each value
    if dt.startswith("uint"):
        vals = rng.integers(0, span, size=shape)
    else:
        vals = rng.integers(-(span // 2), span - span // 2, size=shape)
    return vals.astype(NP_DTYPES[dt])


def from_bits(dt, bits):
    return np.array(bits, dtype=BITS[dt]).view(NP_DTYPES[dt])


def main():
    print("# jax %s: jax.lax.top_k reference data (CPU)" % jax.__version__)
    print("# dtype shape k axis | input | values | indices (int32)")
    dtypes = ["float32", "float16", "bfloat16", "int32", "uint32", "int8", "uint8", "int16", "uint16"]

    for di, dt in enumerate(dtypes):
        rng = np.random.default_rng(1000 + di)
        print("# %s: 1-d, k in {0, 1, n//2, n}" % dt)
        for n in (1, 2, 5, 17, 64, 100):
            x = small_ints(rng, dt, (n,))
            for k in sorted({0, 1, n // 2, n}):
                case(dt, x, k)
        print("# %s: 2-d (4,9) and 3-d (2,3,7), k=3 on the last axis" % dt)
        case(dt, small_ints(rng, dt, (4, 9)), 3)
        case(dt, small_ints(rng, dt, (2, 3, 7)), 3)
        print("# %s: explicit axis" % dt)
        case(dt, small_ints(rng, dt, (4, 9)), 2, axis=0)
        case(dt, small_ints(rng, dt, (4, 9)), 4, axis=-2)
        case(dt, small_ints(rng, dt, (2, 3, 7)), 3, axis=-1)

    print("# 3-d explicit axes (float32, int32)")
    for dt in ("float32", "int32"):
        rng = np.random.default_rng(77)
        x = small_ints(rng, dt, (2, 3, 7))
        case(dt, x, 2, axis=0)
        case(dt, x, 2, axis=1)
        case(dt, x, 2, axis=-2)
        case(dt, x, 1, axis=-3)

    print("# special floats: NaN, -NaN, +-inf, -0.0/+0.0, +-max-ish, subnormals, repeated 1.0")
    sp32 = [0x7fc00000, 0xffc00000, 0x7f800000, 0xff800000, 0x80000000, 0x00000000,
            0x7f61b1e6,  # 3e38
            0xff61b1e6,  # -3e38
            0x00000001,  # 1e-45
            0x80000001,  # -1e-45
            0x000116c2,  # 1e-40
            0x3f800000, 0x3f800000, 0x3f800000]
    x = from_bits("float32", sp32)
    assert x[6] == np.float32(3e38) and x[8] == np.float32(1e-45) and x[10] == np.float32(1e-40)
    n = len(sp32)
    for k in (1, 3, n // 2, n):
        case("float32", x, k)
    # reversed order and zeros-first variants: check tie/sign handling independent of position
    case("float32", x[::-1].copy(), n)
    case("float32", from_bits("float32", [0x80000000, 0x00000000, 0x80000000, 0x00000000]), 4)
    case("float32", from_bits("float32", [0x00000000, 0x80000000, 0x00000000, 0x80000000]), 4)
    # NaN payloads and signalling NaNs (passed through unchanged, ordered by bits)
    case("float32", from_bits("float32", [0x7fc00000, 0x7fc00001, 0xffc00000, 0xffc00001,
                                          0x7fa00000, 0xffa00000, 0x7fc00000, 0x3f800000]), 8)
    # 2-d with specials in every row
    rng = np.random.default_rng(5)
    x2 = from_bits("float32", np.array(sp32, dtype=np.uint32)[rng.permutation(n * 3) % n].reshape(3, n))
    case("float32", x2, 5)
    case("float32", x2, 2, axis=0)

    sp16 = [0x7e00, 0xfe00, 0x7c00, 0xfc00, 0x8000, 0x0000,
            0x7bff,  # 65504 (max)
            0xfbff,  # -65504
            0x0001,  # smallest subnormal
            0x8001,
            0x03ff,  # largest subnormal
            0x3c00, 0x3c00, 0x3c00]
    xh = from_bits("float16", sp16)
    for k in (1, len(sp16) // 2, len(sp16)):
        case("float16", xh, k)
    case("float16", from_bits("float16", [0x7e00, 0x7e01, 0xfe00, 0xfe01, 0x7d00, 0x3c00]), 6)

    spbf = [0x7fc0, 0xffc0, 0x7f80, 0xff80, 0x8000, 0x0000,
            0x7f62,  # ~3e38
            0xff62,
            0x0001,  # subnormal
            0x8001,
            0x0012,  # subnormal
            0x3f80, 0x3f80, 0x3f80]
    xb = from_bits("bfloat16", spbf)
    for k in (1, len(spbf) // 2, len(spbf)):
        case("bfloat16", xb, k)
    print("# bfloat16 NaN payloads: XLA CPU sorts bf16 via f32 and converts back, so every NaN")
    print("# comes out canonical (0x7fc0 / 0xffc0, sign kept) and NaNs of one sign tie (lower index first)")
    case("bfloat16", from_bits("bfloat16", [0x7fc0, 0x7fc1, 0xffc0, 0xffc1, 0x7fa0, 0x3f80]), 6)

    print("# integer extremes")
    for dt in ("int8", "int16", "int32"):
        ii = np.iinfo(NP_DTYPES[dt])
        x = np.array([0, ii.min, ii.max, -1, ii.max, 1, ii.min, 0, -1], dtype=NP_DTYPES[dt])
        case(dt, x, len(x))
        case(dt, x, 3)
    for dt in ("uint8", "uint16", "uint32"):
        ii = np.iinfo(NP_DTYPES[dt])
        x = np.array([0, ii.max, 1, ii.max, 0, ii.max // 2 + 1, ii.max // 2], dtype=NP_DTYPES[dt])
        case(dt, x, len(x))
        case(dt, x, 2)

    print("# bool (accepted; True > False, ties by lower index)")
    case("bool", np.array([True, False, True, False, False, True, True], dtype=np.bool_), 7)
    case("bool", np.array([False, False, True, False, True], dtype=np.bool_), 2)
    case("bool", np.array([[True, False, True], [False, False, True]], dtype=np.bool_), 2, axis=0)

    print("# empty arrays")
    for dt in ("float32", "int32"):
        case(dt, np.zeros((3, 0), dtype=NP_DTYPES[dt]), 0)
    case("float32", np.zeros((0, 3), dtype=np.float32), 2)
    case("float32", np.zeros((0,), dtype=np.float32), 0)


if __name__ == "__main__":
    main()
