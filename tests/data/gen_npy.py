# NumPy golden files for olympus's .npy/.npz tests (tests/core/npy.rs).
# Generated with:
#   python3 tests/data/gen_npy.py   (NumPy 2.x; writes tests/data/npy/)
import os
import numpy as np

out = os.path.join(os.path.dirname(__file__), "npy")
os.makedirs(out, exist_ok=True)


def save(name, a):
    np.save(os.path.join(out, name + ".npy"), a, allow_pickle=name.startswith("object"))


base = np.array([[1.5, -2.25, 3.0], [0.0, -0.0, 65504.0]])
save("f4", base.astype("<f4"))
save("f2", base.astype("<f2"))
save("i4", np.array([[1, -2, 3], [2147483647, -2147483648, 0]], "<i4"))
save("u4", np.array([[1, 2, 3], [4294967295, 0, 7]], "<u4"))
save("b1", np.array([[True, False, True], [False, False, True]]))
save("f4_scalar", np.array(3.5, "<f4"))
save("f4_empty", np.zeros((0, 3), "<f4"))
# Big-endian and Fortran order.
save("f4_be", base.astype(">f4"))
save("i4_be", np.array([[1, -2, 3], [4, 5, -6]], ">i4"))
save("f2_be", base.astype(">f2"))
save("f4_fortran", np.asfortranarray(np.arange(12, dtype="<f4").reshape(3, 4)))
save("i4_fortran_be", np.asfortranarray(np.arange(6, dtype=">i4").reshape(2, 3)))
# NumPy's 64-bit defaults and small integers, converted as JAX canonicalises them.
save("f8", np.array([0.1, 1e10, -2.5], "<f8"))
save("i8", np.array([5, -7, 2**31 - 1], "<i8"))
save("i8_overflow", np.array([2**40], "<i8"))
save("u1", np.array([0, 200, 255], "u1"))
save("i2", np.array([-300, 12, 32767], "<i2"))
# Headers of every rank and of the narrow dtypes, which Olympus's writer must match byte
# for byte (tests/core/npy.rs: files_olympus_writes_match_numpys).
save("f4_256", (np.arange(256, dtype="<f4") * 0.5))
save("i1_3d", (np.arange(24) - 12).astype("i1").reshape(2, 3, 4))
save("u2_wide", np.arange(0, 70000, 7000).astype("<u2").reshape(1, 10))
save("i4_long_axis", np.arange(12345678901 % 1000, dtype="<i4"))
try:
    import ml_dtypes

    save("bf16", np.array([1.0, -2.5, 3.0e38, 0.0], dtype=ml_dtypes.bfloat16))
except ImportError:
    pass
# Unsupported.
save("c16", np.array([1 + 2j], "<c16"))
save("object", np.array([{"a": 1}], dtype=object))
save("U3", np.array(["abc"]))
np.savez(os.path.join(out, "archive.npz"), weights=base.astype("<f4"), steps=np.array([1, 2, 3], "<i4"))
# A truncated file and one with a wrong magic string.
with open(os.path.join(out, "f4.npy"), "rb") as f:
    data = f.read()
with open(os.path.join(out, "truncated.npy"), "wb") as f:
    f.write(data[: len(data) - 5])
with open(os.path.join(out, "bad_magic.npy"), "wb") as f:
    f.write(b"\x93NUMPX" + data[6:])
