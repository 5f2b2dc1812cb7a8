# Generates tests/data/jax_rules.txt: JAX's answers (or its refusal) where its rules differ
# from NumPy's: bool operands, negative weak ints with uint32, fill values wrapped into the
# dtype, integer powers, `.at[]` updates that promote and convert back, var/std with a
# large ddof, nonzero of a 0-d array, integers past the end in basic indexing; and the
# Array API's names and small NumPy functions (fabs, ptp, cumulative_sum, concat, ...).
# Run: pip install "jax[cpu]==0.10.2" && python3 tests/data/gen_jax_rules.py > tests/data/jax_rules.txt
# Each line: name, then the result dtype, its weak flag, shape and comma-separated values,
# or "error".
# The test (tests/core/dtypes.rs, jax_rules_match) has one closure per name.
import math, warnings
import jax, jax.numpy as jnp
import numpy as np
jax.config.update("jax_enable_x64", False)
warnings.simplefilter("ignore")

b = jnp.array([True, False, True, False])
c = jnp.array([True, True, False, False])
u = jnp.array([0, 1, 5, 4294967295], dtype=jnp.uint32)
i = jnp.array([1, 2, -3, 0], dtype=jnp.int32)
z = jnp.array([10, -10, 0, 16777217], dtype=jnp.int32)
f = jnp.array([1.0, 2.0, 4.0], dtype=jnp.float32)
h = jnp.array([1.0, 2.0], dtype=jnp.float16)
mask = jnp.array([True, False, True, False])
ar = jnp.arange(5, dtype=jnp.int32)
m = jnp.arange(6, dtype=jnp.int32).reshape(2, 3)
nan, inf = float("nan"), float("inf")
sp = jnp.array([-inf, -2.5, -0.0, 0.0, inf, nan], dtype=jnp.float32)

cases = {
    # bool operands
    "positive_bool": lambda: jnp.positive(b),
    "square_bool": lambda: jnp.square(b),
    "abs_bool": lambda: jnp.abs(b),
    "invert_bool": lambda: jnp.invert(b),
    "floor_bool": lambda: jnp.floor(b),
    "ceil_bool": lambda: jnp.ceil(b),
    "trunc_bool": lambda: jnp.trunc(b),
    "rint_bool": lambda: jnp.rint(b),
    "negative_bool": lambda: jnp.negative(b),
    "sign_bool": lambda: jnp.sign(b),
    "cumsum_bool": lambda: jnp.cumsum(b),
    "cumprod_bool": lambda: jnp.cumprod(c),
    "sum_bool": lambda: jnp.sum(b),
    "prod_bool": lambda: jnp.prod(c),
    "mean_bool": lambda: jnp.mean(b),
    "var_bool": lambda: jnp.var(b),
    "add_bool": lambda: jnp.add(b, c),
    "multiply_bool": lambda: jnp.multiply(b, c),
    "maximum_bool": lambda: jnp.maximum(b, c),
    "minimum_bool": lambda: jnp.minimum(b, c),
    "subtract_bool": lambda: jnp.subtract(b, c),
    "power_bool": lambda: jnp.power(b, c),
    "power_bool_2": lambda: jnp.power(b, 2),
    "power_bool_neg": lambda: jnp.power(b, -1),
    "power_2_bool": lambda: jnp.power(2, b),
    "floor_divide_bool": lambda: jnp.floor_divide(b, c),
    "remainder_bool": lambda: jnp.remainder(b, c),
    "mod_bool": lambda: jnp.mod(b, c),
    "fmod_bool": lambda: jnp.fmod(b, c),
    "left_shift_bool": lambda: jnp.left_shift(b, c),
    "right_shift_bool": lambda: jnp.right_shift(b, c),
    "gcd_bool": lambda: jnp.gcd(b, c),
    "lcm_bool": lambda: jnp.lcm(b, c),
    "true_divide_bool": lambda: jnp.true_divide(b, c),
    "copysign_bool": lambda: jnp.copysign(b, c),
    # negative weak ints with uint32 wrap into uint32
    "add_u32_neg": lambda: jnp.add(u, -1),
    "subtract_u32_neg": lambda: jnp.subtract(u, -1),
    "subtract_neg_u32": lambda: jnp.subtract(-1, u),
    "multiply_u32_neg": lambda: jnp.multiply(u, -1),
    "maximum_u32_neg": lambda: jnp.maximum(u, -1),
    "minimum_neg_u32": lambda: jnp.minimum(-1, u),
    "floor_divide_u32_neg": lambda: jnp.floor_divide(u, -1),
    "floor_divide_neg_u32": lambda: jnp.floor_divide(-1, u),
    "remainder_u32_neg": lambda: jnp.remainder(u, -1),
    "power_neg_u32": lambda: jnp.power(-1, u),
    "bitwise_and_u32_neg": lambda: jnp.bitwise_and(u, -1),
    "equal_u32_neg": lambda: jnp.equal(u, -1),
    "less_neg_u32": lambda: jnp.less(-1, u),
    "where_u32_neg": lambda: jnp.where(mask, u, -1),
    "where_neg_u32": lambda: jnp.where(mask, -1, u),
    "clip_u32_neg": lambda: jnp.clip(u, -1, 3),
    "add_u32_int_min": lambda: jnp.add(u, -2**31),
    "add_i32_int_max": lambda: jnp.add(i, 2**31 - 1),
    "add_i32_past_max": lambda: jnp.add(i, 2**31),
    "add_i32_past_min": lambda: jnp.add(i, -2**31 - 1),
    # fill values convert into the dtype as astype does
    "full_neg_u32": lambda: jnp.full((2,), -1, jnp.uint32),
    "full_2p32_5_u32": lambda: jnp.full((2,), 2**32 + 5, jnp.uint32),
    "full_2p31_i32": lambda: jnp.full((2,), 2**31, jnp.int32),
    "full_below_min_i32": lambda: jnp.full((2,), -2**31 - 1, jnp.int32),
    "full_3e9_i32": lambda: jnp.full((2,), 3e9, jnp.int32),
    "full_nan_i32": lambda: jnp.full((2,), float("nan"), jnp.int32),
    "full_1p5_i32": lambda: jnp.full((2,), 1.5, jnp.int32),
    "full_neg1p5_u32": lambda: jnp.full((2,), -1.5, jnp.uint32),
    "full_300_bool": lambda: jnp.full((2,), 300, jnp.bool_),
    "full_neg_bool": lambda: jnp.full((2,), -1, jnp.bool_),
    "full_70000_f16": lambda: jnp.full((2,), 70000, jnp.float16),
    "full_true_i32": lambda: jnp.full((2,), True, jnp.int32),
    "full_2p31": lambda: jnp.full((2,), 2**31),
    "full_2p40": lambda: jnp.full((2,), 2**40),
    "full_16777217f_i32": lambda: jnp.full((2,), 16777217.0, jnp.int32),
    "full_like_u32_neg": lambda: jnp.full_like(u, -1),
    "full_like_i32_2p31": lambda: jnp.full_like(i, 2**31),
    # integer powers
    "power_i32_neg1": lambda: jnp.power(i, -1),
    "power_i32_neg2": lambda: jnp.power(i, -2),
    "power_i32_0": lambda: jnp.power(i, 0),
    "power_i32_3": lambda: jnp.power(i, 3),
    "power_u32_neg1": lambda: jnp.power(u, -1),
    "power_neg1_i32": lambda: jnp.power(-1, i),
    "power_i32_neg1f": lambda: jnp.power(i, -1.0),
    "power_f32_neg1": lambda: jnp.power(f, -1),
    "power_2_true": lambda: jnp.power(2, True),
    "power_i32_true": lambda: jnp.power(i, True),
    "gcd_bool_int": lambda: jnp.gcd(b, 2),
    "gcd_weak_weak": lambda: jnp.gcd(4, 6),
    "lcm_i32_weak": lambda: jnp.lcm(i, 2),
    "at_set_promise_past_end": lambda: ar.at[7].set(100, mode="promise_in_bounds"),
    "at_add_promise_positions": lambda: ar.at[jnp.array([1, 9])].add(100, mode="promise_in_bounds"),
    # .at[] updates promote with the array, then convert back
    "at_add_bool": lambda: b.at[0].add(True),
    "at_multiply_bool": lambda: b.at[0].multiply(True),
    "at_set_bool": lambda: b.at[1].set(True),
    "at_min_bool": lambda: b.at[0].min(False),
    "at_max_bool": lambda: b.at[1].max(True),
    "at_add_bool_int": lambda: b.at[1].add(2),
    "at_multiply_bool_int": lambda: b.at[0].multiply(0),
    "at_set_bool_int": lambda: b.at[1].set(2),
    "at_set_bool_float": lambda: b.at[1].set(0.5),
    "at_add_i32_floats": lambda: z.at[:].add(jnp.array([1.7, 1.7, -1.7, 0.0])),
    "at_add_i32_float": lambda: z.at[0].add(-2.9),
    "at_set_i32_floats": lambda: z.at[:].set(jnp.array([1.7, -1.7, 2.5, 3e9])),
    "at_multiply_i32_float": lambda: z.at[:3].multiply(1.5),
    "at_min_i32_floats": lambda: z.at[:3].min(jnp.array([1.5, -10.5, -0.5])),
    "at_max_i32_floats": lambda: z.at[:3].max(jnp.array([10.5, -9.5, -0.5])),
    "at_add_i32_nan": lambda: z.at[0].add(float("nan")),
    "at_add_i32_inf": lambda: z.at[1].add(float("inf")),
    "at_add_i32_f16": lambda: z.at[0].add(jnp.array(1.5, jnp.float16)),
    "at_add_i32_bool": lambda: z.at[0].add(True),
    "at_add_i32_past_max": lambda: z.at[0].add(2**31),
    "at_add_u32_floats": lambda: u.at[:].add(jnp.array([1.7, -1.7, 2.0, 1.0])),
    "at_set_u32_neg": lambda: u.at[0].set(-1),
    "at_add_u32_neg": lambda: u.at[1].add(-1),
    "at_set_u32_negf": lambda: u.at[0].set(-1.5),
    "at_add_f16_small": lambda: h.at[0].add(1e-4),
    "at_set_f16_big": lambda: h.at[0].set(70000.0),
    # var/std with ddof >= n
    "var_ddof2": lambda: jnp.var(f, ddof=2),
    "var_ddof3": lambda: jnp.var(f, ddof=3),
    "var_ddof4": lambda: jnp.var(f, ddof=4),
    "std_ddof3": lambda: jnp.std(f, ddof=3),
    "std_ddof5": lambda: jnp.std(f, ddof=5),
    "var_int_ddof3": lambda: jnp.var(jnp.array([1, 2, 4]), ddof=3),
    "var_single_ddof1": lambda: jnp.var(jnp.array([5.0]), ddof=1),
    "var_empty": lambda: jnp.var(jnp.zeros((0,))),
    "var_axis_ddof2": lambda: jnp.var(jnp.array([[1.0, 2.0], [3.0, 5.0]]), axis=1, ddof=2),
    # nonzero of a 0-d array
    "nonzero_0d": lambda: jnp.nonzero(jnp.array(3))[0],
    "nonzero_1d": lambda: jnp.nonzero(jnp.array([0, 3, 0, 4]))[0],
    "argwhere_0d": lambda: jnp.argwhere(jnp.array(3)),
    # integers past the end in basic indexing clamp; updates there are dropped
    "index_past_end": lambda: ar[7],
    "index_before_start": lambda: ar[-7],
    "index_row_past_end": lambda: m[5],
    "index_col_before_start": lambda: m[:, -4],
    "index_empty_axis": lambda: jnp.zeros((0,))[0],
    "at_get_past_end": lambda: ar.at[7].get(),
    "at_get_fill": lambda: ar.at[7].get(mode="fill", fill_value=-1),
    "at_add_before_start": lambda: ar.at[-9].add(10),
    "at_add_clip": lambda: ar.at[7].add(10, mode="clip"),
    "at_set_2d_past_end": lambda: m.at[5, 1].set(-1),
    "at_set_2d_row": lambda: m.at[1, 1:].set(-1),
    "at_get_2d_fill": lambda: m.at[7, 1:].get(mode="fill", fill_value=-9),
    # the Array API's names and NumPy's small functions (issue #30)
    "fabs_i32": lambda: jnp.fabs(i),
    "fabs_bool": lambda: jnp.fabs(b),
    "fabs_special": lambda: jnp.fabs(sp),
    "fabs_f16": lambda: jnp.fabs(-h),
    "isneginf_special": lambda: jnp.isneginf(sp),
    "isposinf_special": lambda: jnp.isposinf(sp),
    "isneginf_i32": lambda: jnp.isneginf(i),
    "isposinf_bool": lambda: jnp.isposinf(b),
    "acos_special": lambda: jnp.acos(jnp.array([-1.0, -0.5, 0.0, 1.0, 1.5, nan])),
    "acosh_f": lambda: jnp.acosh(f),
    "asin_half": lambda: jnp.asin(jnp.array([-1.0, -0.5, 0.0, 0.5, 2.0])),
    "asinh_f": lambda: jnp.asinh(-f),
    "atan_f": lambda: jnp.atan(f),
    "atanh_half": lambda: jnp.atanh(jnp.array([-1.0, -0.5, 0.0, 0.5, 1.0])),
    "atan2_ff": lambda: jnp.atan2(f, -f),
    "atan2_i32": lambda: jnp.atan2(i, 2),
    "pow_i32": lambda: jnp.pow(i, 2),
    "pow_i32_neg": lambda: jnp.pow(i, -1),
    "pow_f_weak": lambda: jnp.pow(f, 0.5),
    "bitwise_invert_i32": lambda: jnp.bitwise_invert(i),
    "bitwise_invert_bool": lambda: jnp.bitwise_invert(b),
    "bitwise_left_shift_u32": lambda: jnp.bitwise_left_shift(u, 3),
    "bitwise_right_shift_i32": lambda: jnp.bitwise_right_shift(i, 1),
    "degrees_f": lambda: jnp.degrees(f),
    "radians_i32": lambda: jnp.radians(i),
    "amax_m": lambda: jnp.amax(m, axis=1),
    "amin_m": lambda: jnp.amin(m),
    "ptp_m": lambda: jnp.ptp(m, axis=0),
    "ptp_f_keep": lambda: jnp.ptp(f, keepdims=True),
    "ptp_special": lambda: jnp.ptp(sp),
    "ptp_bool": lambda: jnp.ptp(b),
    "cumulative_sum_m1": lambda: jnp.cumulative_sum(m, axis=1, include_initial=True),
    "cumulative_sum_1d": lambda: jnp.cumulative_sum(ar),
    "cumulative_sum_2d_no_axis": lambda: jnp.cumulative_sum(m),
    "cumulative_sum_0d": lambda: jnp.cumulative_sum(jnp.array(3)),
    "cumulative_sum_bool": lambda: jnp.cumulative_sum(b),
    "cumulative_sum_f16": lambda: jnp.cumulative_sum(h, include_initial=True),
    "cumulative_prod_dtype": lambda: jnp.cumulative_prod(i, dtype=jnp.float32, include_initial=True),
    "cumulative_prod_m0": lambda: jnp.cumulative_prod(m, axis=0),
    "permute_dims_m": lambda: jnp.permute_dims(m, (1, 0)),
    "matrix_transpose_m": lambda: jnp.matrix_transpose(m),
    "matrix_transpose_1d": lambda: jnp.matrix_transpose(ar),
    "fliplr_m": lambda: jnp.fliplr(m),
    "flipud_m": lambda: jnp.flipud(m),
    "flipud_1d": lambda: jnp.flipud(ar),
    "fliplr_1d": lambda: jnp.fliplr(ar),
    "concat_none": lambda: jnp.concat([m, ar], axis=None),
    "concat_axis0": lambda: jnp.concat([m, m], axis=0),
    "concat_promote": lambda: jnp.concat([ar, f], axis=0),
    "copy_m": lambda: jnp.copy(m),
    "heaviside_special": lambda: jnp.heaviside(sp, 0.5),
    "heaviside_i32": lambda: jnp.heaviside(i, jnp.array([7, 7, 7, 7])),
    "sinc_special": lambda: jnp.sinc(jnp.array([0.0, -0.0, 0.5, 1.0, -2.5, 1e-20, inf, nan])),
    "sinc_i32": lambda: jnp.sinc(i),
    "rot90_m": lambda: jnp.rot90(m),
    "rot90_m_k2": lambda: jnp.rot90(m, 2),
    "rot90_m_k3": lambda: jnp.rot90(m, -1),
    "rot90_t_axes": lambda: jnp.rot90(jnp.arange(24).reshape(2, 3, 4), 1, (2, 0)),
    "rot90_1d": lambda: jnp.rot90(ar),
    "hsplit_m": lambda: jnp.hsplit(m, 3)[1],
    "hsplit_1d": lambda: jnp.hsplit(jnp.arange(6), 2)[1],
    "vsplit_m": lambda: jnp.vsplit(m, 2)[1],
    "vsplit_1d": lambda: jnp.vsplit(ar, 1)[0],
    "dsplit_t": lambda: jnp.dsplit(jnp.arange(24).reshape(2, 3, 4), 2)[1],
    "column_stack_1d": lambda: jnp.column_stack([ar, ar * 2]),
    "column_stack_mixed": lambda: jnp.column_stack([jnp.arange(2), m, f[:2]]),
    "logspace_10": lambda: jnp.logspace(0.0, 3.0, 4),
    "logspace_base2": lambda: jnp.logspace(-1.0, 4.0, 6, endpoint=False, base=2.0),
    "tri_3": lambda: jnp.tri(3),
    "tri_rect": lambda: jnp.tri(2, 4, -1, dtype=jnp.int32),
}

def fmt(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "nan" if math.isnan(v) else repr(v)
    return str(v)

print(f"# jax {jax.__version__}: name dtype weak shape values | name error")
for name, fn in cases.items():
    try:
        r = fn()
    except Exception as e:
        print(name, "error", "#", type(e).__name__)
        continue
    vals = np.asarray(r).reshape(-1).tolist()
    shape = "x".join(str(d) for d in r.shape) or "scalar"
    print(name, r.dtype.name, int(r.weak_type), shape, ",".join(fmt(v) for v in vals) or "-")
