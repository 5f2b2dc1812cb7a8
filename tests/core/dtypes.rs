//! Promotion against JAX's table, and astype between every pair of dtypes.

use crate::common::*;
use half::f16;
use olympus::{lax, numpy as np, promote_types, result_type, DType, TypeSpec};

fn spec(name: &str) -> TypeSpec {
    match name {
        "weak_int" => TypeSpec::weak(DType::Int32),
        "weak_float" => TypeSpec::weak(DType::Float32),
        n => TypeSpec::strong(DType::from_name(n).expect("dtype name")),
    }
}

/// `tests/data/promotion.txt` was produced by JAX (command in `tests/data/gen_promotion.py`).
#[test]
fn promotion_matches_jax_for_every_pair() {
    let table = include_str!("../data/promotion.txt");
    let mut rows = 0;
    for line in table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("astype"))
    {
        let f: Vec<&str> = line.split_whitespace().collect();
        let (a, b, want, weak) = (
            spec(f[0]),
            spec(f[1]),
            DType::from_name(f[2]).unwrap(),
            f[3] == "1",
        );
        let got = result_type(&[a, b]);
        assert_eq!((got.dtype, got.weak), (want, weak), "{} + {}", f[0], f[1]);
        if !a.weak && !b.weak {
            assert_eq!(promote_types(a.dtype, b.dtype), want);
        }
        rows += 1;
    }
    assert_eq!(rows, 144);
}

/// The same pairs through real arrays and Rust scalars: the result dtype of `add`.
#[test]
fn promotion_through_add() {
    let table = include_str!("../data/promotion.txt");
    for line in table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("astype"))
    {
        let f: Vec<&str> = line.split_whitespace().collect();
        let arg = |n: &str| -> olympus::convert::Operand {
            use olympus::ArrayLike;
            match n {
                "weak_int" => 3.into_operand().unwrap(),
                "weak_float" => 0.5.into_operand().unwrap(),
                d => np::ones(&[2], DType::from_name(d).unwrap())
                    .unwrap()
                    .into_operand()
                    .unwrap(),
            }
        };
        let r = np::add(arg(f[0]), arg(f[1])).unwrap();
        assert_eq!(r.dtype().name(), f[2], "{} + {}", f[0], f[1]);
        assert_eq!(r.weak_type(), f[3] == "1", "{} + {} weak", f[0], f[1]);
    }
}

/// Reference conversion: XLA's rules (integers wrap into integers, floats truncate toward
/// zero and saturate into integers, NaN to 0; integers round to float32 before a 16-bit
/// float, as XLA on CPU).
fn cast_ref(v: f64, from: DType, to: DType) -> f64 {
    if from.is_bool() || from.is_integer() {
        if let Some((lo, hi)) = to.integer_range() {
            let span = (hi - lo + 1) as i128;
            let w = (v as i128 - lo as i128).rem_euclid(span) + lo as i128;
            return w as f64;
        }
    }
    match to {
        DType::Bool => f64::from(u8::from(v != 0.0)),
        DType::Float16 => f16::from_f32(v as f32).to_f64(),
        DType::BFloat16 => half::bf16::from_f32(v as f32).to_f64(),
        DType::Float32 => f64::from(v as f32),
        d => {
            let (lo, hi) = d.integer_range().unwrap();
            if v.is_nan() {
                0.0
            } else {
                v.trunc().clamp(lo as f64, hi as f64)
            }
        }
    }
}

#[test]
fn astype_every_pair_random_and_edges() {
    let mut r = rng();
    let edges = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -1.5,
        -0.5,
        0.0,
        0.5,
        2.5,
        3e9,
        -3e9,
        65519.0,
        65520.0,
        1e-8,
        2147483520.0,
        4294967040.0,
        -2147483648.0,
    ];
    for from in every_dtype() {
        let mut v = random_values(&mut r, from, 257);
        if from == DType::Float32 {
            v.extend(edges);
        }
        if from.bits() == 16 && from.is_floating() {
            v.extend(edges.iter().map(|&e| round_to(e, from)));
        }
        if from.is_integer() {
            v.extend([0.0, 1.0, 16777217.0, 2049.0].map(|e| round_to(e, from)));
        }
        let a = make(&v, &[v.len()], from);
        for to in every_dtype() {
            let got = a.astype(to).unwrap();
            let want: Vec<f64> = v.iter().map(|&x| cast_ref(x, from, to)).collect();
            assert_close(&format!("astype {from} -> {to}"), &got, &want, to, EXACT);
            assert!(!got.weak_type());
        }
    }
}

/// JAX's own answers for edge conversions, from the same generated file.
#[test]
fn astype_edges_match_jax() {
    let table = include_str!("../data/promotion.txt");
    let mut rows = 0;
    // `astype` rows convert a float32 value, `astype_int` rows an int32 one.
    for line in table.lines().filter(|l| l.starts_with("astype")) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let x = if f[0] == "astype" {
            np::asarray(vec![f[1].parse::<f32>().unwrap()])
        } else {
            np::asarray(vec![f[1].parse::<i32>().unwrap()])
        };
        let to = DType::from_name(f[2]).unwrap();
        let got = x.unwrap().astype(to).unwrap().to_f64_vec().unwrap()[0];
        let want: f64 = f[3].parse().unwrap();
        assert!(
            got == want || (got.is_nan() && want.is_nan()),
            "{} {} as {to}: got {got}, want {want}",
            f[0],
            f[1]
        );
        rows += 1;
    }
    assert_eq!(rows, 25 * 9 + 10 * 9);
}

#[test]
fn dtype_names_and_properties() {
    for d in DType::ALL {
        assert_eq!(DType::from_name(d.name()), Some(d));
    }
    assert!(DType::Float16.is_floating() && !DType::UInt32.is_signed());
    assert_eq!(DType::Float16.itemsize(), 2);
    assert_eq!(DType::Int8.itemsize(), 1);
    assert_eq!(DType::BFloat16.itemsize(), 2);
    assert!(DType::BFloat16.is_floating() && DType::Int16.is_signed_integer());
    assert_eq!(DType::UInt8.compute_dtype(), DType::UInt32);
}

/// `jnp.can_cast` for every pair of dtypes, safe and same-kind (tables from JAX 0.10.2:
/// `[b for b in dtypes if jnp.can_cast(a, b, casting=c)]`).
#[test]
fn can_cast_matches_jax_for_every_pair() {
    use olympus::numpy::Casting;
    let names = [
        "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "bfloat16", "float16",
        "float32",
    ];
    let safe: [&[&str]; 10] = [
        &names,
        &["int8", "int16", "int32", "bfloat16", "float16", "float32"],
        &[
            "uint8", "int16", "uint16", "int32", "uint32", "bfloat16", "float16", "float32",
        ],
        &["int16", "int32", "float32"],
        &["uint16", "int32", "uint32", "float32"],
        &["int32"],
        &["uint32"],
        &["bfloat16", "float32"],
        &["float16", "float32"],
        &["float32"],
    ];
    let ints = ["int8", "int16", "int32"];
    let floats = ["bfloat16", "float16", "float32"];
    let all_but_bool = &names[1..];
    let same_kind: [Vec<&str>; 10] = [
        names.to_vec(),
        [&ints[..], &floats[..]].concat(),
        all_but_bool.to_vec(),
        [&ints[..], &floats[..]].concat(),
        all_but_bool.to_vec(),
        [&ints[..], &floats[..]].concat(),
        all_but_bool.to_vec(),
        floats.to_vec(),
        floats.to_vec(),
        floats.to_vec(),
    ];
    for (i, a) in names.iter().enumerate() {
        for b in names {
            let (from, to) = (DType::from_name(a).unwrap(), DType::from_name(b).unwrap());
            assert_eq!(
                np::can_cast(from, to, Casting::Safe),
                safe[i].contains(&b),
                "safe {a} -> {b}"
            );
            assert_eq!(
                np::can_cast(from, to, Casting::SameKind),
                same_kind[i].contains(&b),
                "same_kind {a} -> {b}"
            );
        }
    }
}

/// One case of `tests/data/jax_rules.txt`, by name, on the inputs
/// `[b, c, u, i, z, f, h, mask, ar, m]` of `gen_jax_rules.py`. `None` for names that only
/// run eagerly when `jitted` (their output shape depends on the data).
fn jax_rule(
    name: &str,
    a: &[olympus::Array],
    jitted: bool,
) -> Option<olympus::Result<olympus::Array>> {
    use np::{IndexMode, QuantileMethod as QM, Side};
    use olympus::s;
    let [b, c, u, i, z, f, h, mask, ar, m] = a else {
        panic!("ten inputs")
    };
    let first3 = || s![..3];
    let f0 = |v: f32| np::array(v).unwrap();
    let (nan, inf) = (f32::NAN, f32::INFINITY);
    let af = |v: &[f32]| np::array(v.to_vec()).unwrap();
    let ai = |v: &[i32]| np::array(v.to_vec()).unwrap();
    let m2 = |v: &[i32], r: usize, c: usize| np::reshape(ai(v), &[r as isize, c as isize]).unwrap();
    let q5 = || af(&[4.0, 1.0, 3.0, 2.0, 9.5]);
    let dig = || af(&[0.5, 1.0, 1.5, 3.0, 9.0]);
    let hist6 = || af(&[0.0, 1.0, 2.0, 5.0, 9.0, 10.0]);
    let nan24 = || np::reshape(af(&[1.0, nan, 3.0, 4.0, nan, 2.0, nan, nan]), &[2, 4]).unwrap();
    let cov_m = || {
        np::reshape(
            af(&[1.0, 2.0, 4.0, 7.0, 2.0, 1.0, 0.5, 3.0, 0.0, 1.0, 0.0, 1.0]),
            &[3, 4],
        )
        .unwrap()
    };
    let special = || {
        let inf = f32::INFINITY;
        np::array([-inf, -2.5, -0.0, 0.0, inf, f32::NAN]).unwrap()
    };
    Some(match name {
        "positive_bool" => np::positive(b),
        "square_bool" => np::square(b),
        "abs_bool" => np::abs(b),
        "invert_bool" => np::invert(b),
        "floor_bool" => np::floor(b),
        "ceil_bool" => np::ceil(b),
        "trunc_bool" => np::trunc(b),
        "rint_bool" => np::rint(b),
        "negative_bool" => np::negative(b),
        "sign_bool" => np::sign(b),
        "cumsum_bool" => np::cumsum(b, None),
        "cumprod_bool" => np::cumprod(c, None),
        "sum_bool" => np::sum(b, None, false),
        "prod_bool" => np::prod(c, None, false),
        "mean_bool" => np::mean(b, None, false),
        "var_bool" => np::var(b, None, 0, false),
        "add_bool" => np::add(b, c),
        "multiply_bool" => np::multiply(b, c),
        "maximum_bool" => np::maximum(b, c),
        "minimum_bool" => np::minimum(b, c),
        "subtract_bool" => np::subtract(b, c),
        "power_bool" => np::power(b, c),
        "power_bool_2" => np::power(b, 2),
        "power_bool_neg" => np::power(b, -1),
        "power_2_bool" => np::power(2, b),
        "floor_divide_bool" => np::floor_divide(b, c),
        "remainder_bool" => np::remainder(b, c),
        "mod_bool" => np::r#mod(b, c),
        "fmod_bool" => np::fmod(b, c),
        "left_shift_bool" => np::left_shift(b, c),
        "right_shift_bool" => np::right_shift(b, c),
        "gcd_bool" => np::gcd(b, c),
        "lcm_bool" => np::lcm(b, c),
        "true_divide_bool" => np::true_divide(b, c),
        "copysign_bool" => np::copysign(b, c),
        "add_u32_neg" => np::add(u, -1),
        "subtract_u32_neg" => np::subtract(u, -1),
        "subtract_neg_u32" => np::subtract(-1, u),
        "multiply_u32_neg" => np::multiply(u, -1),
        "maximum_u32_neg" => np::maximum(u, -1),
        "minimum_neg_u32" => np::minimum(-1, u),
        "floor_divide_u32_neg" => np::floor_divide(u, -1),
        "floor_divide_neg_u32" => np::floor_divide(-1, u),
        "remainder_u32_neg" => np::remainder(u, -1),
        "power_neg_u32" => np::power(-1, u),
        "bitwise_and_u32_neg" => np::bitwise_and(u, -1),
        "equal_u32_neg" => np::equal(u, -1),
        "less_neg_u32" => np::less(-1, u),
        "where_u32_neg" => np::r#where(mask, u, -1),
        "where_neg_u32" => np::r#where(mask, -1, u),
        "clip_u32_neg" => np::clip(u, -1, 3),
        "add_u32_int_min" => np::add(u, i64::from(i32::MIN)),
        "add_i32_int_max" => np::add(i, i32::MAX),
        "add_i32_past_max" => np::add(i, 1i64 << 31),
        "add_i32_past_min" => np::add(i, -(1i64 << 31) - 1),
        "full_neg_u32" => np::full(&[2], -1, Some(DType::UInt32)),
        "full_2p32_5_u32" => np::full(&[2], (1i64 << 32) + 5, Some(DType::UInt32)),
        "full_2p31_i32" => np::full(&[2], 1i64 << 31, Some(DType::Int32)),
        "full_below_min_i32" => np::full(&[2], -(1i64 << 31) - 1, Some(DType::Int32)),
        "full_3e9_i32" => np::full(&[2], 3e9, Some(DType::Int32)),
        "full_nan_i32" => np::full(&[2], f64::NAN, Some(DType::Int32)),
        "full_1p5_i32" => np::full(&[2], 1.5, Some(DType::Int32)),
        "full_neg1p5_u32" => np::full(&[2], -1.5, Some(DType::UInt32)),
        "full_300_bool" => np::full(&[2], 300, Some(DType::Bool)),
        "full_neg_bool" => np::full(&[2], -1, Some(DType::Bool)),
        "full_70000_f16" => np::full(&[2], 70000, Some(DType::Float16)),
        "full_true_i32" => np::full(&[2], true, Some(DType::Int32)),
        "full_2p31" => np::full(&[2], 1i64 << 31, None),
        "full_2p40" => np::full(&[2], 1i64 << 40, None),
        "full_16777217f_i32" => np::full(&[2], 16777217.0, Some(DType::Int32)),
        "full_like_u32_neg" => np::full_like(u, -1),
        "full_like_i32_2p31" => np::full_like(i, 1i64 << 31),
        "power_i32_neg1" => np::power(i, -1),
        "power_i32_neg2" => np::power(i, -2),
        "power_i32_0" => np::power(i, 0),
        "power_i32_3" => np::power(i, 3),
        "power_u32_neg1" => np::power(u, -1),
        "power_neg1_i32" => np::power(-1, i),
        "power_i32_neg1f" => np::power(i, -1.0),
        "power_f32_neg1" => np::power(f, -1),
        "power_2_true" => np::power(2, true),
        "power_i32_true" => np::power(i, true),
        "gcd_bool_int" => np::gcd(b, 2),
        "gcd_weak_weak" => np::gcd(4, 6),
        "lcm_i32_weak" => np::lcm(i, 2),
        "at_set_promise_past_end" => ar.at(s![7]).mode(IndexMode::PromiseInBounds).set(100),
        "at_add_promise_positions" => ar.at([1, 9]).mode(IndexMode::PromiseInBounds).add(100),
        "at_add_bool" => b.at(s![0]).add(true),
        "at_multiply_bool" => b.at(s![0]).multiply(true),
        "at_set_bool" => b.at(s![1]).set(true),
        "at_min_bool" => b.at(s![0]).min(false),
        "at_max_bool" => b.at(s![1]).max(true),
        "at_add_bool_int" => b.at(s![1]).add(2),
        "at_multiply_bool_int" => b.at(s![0]).multiply(0),
        "at_set_bool_int" => b.at(s![1]).set(2),
        "at_set_bool_float" => b.at(s![1]).set(0.5),
        "at_add_i32_floats" => z.at(s![..]).add(vec![1.7f32, 1.7, -1.7, 0.0]),
        "at_add_i32_float" => z.at(s![0]).add(-2.9),
        "at_set_i32_floats" => z.at(s![..]).set(vec![1.7f32, -1.7, 2.5, 3e9]),
        "at_multiply_i32_float" => z.at(first3()).multiply(1.5),
        "at_min_i32_floats" => z.at(first3()).min(vec![1.5f32, -10.5, -0.5]),
        "at_max_i32_floats" => z.at(first3()).max(vec![10.5f32, -9.5, -0.5]),
        "at_add_i32_nan" => z.at(s![0]).add(f64::NAN),
        "at_add_i32_inf" => z.at(s![1]).add(f64::INFINITY),
        "at_add_i32_f16" => z.at(s![0]).add(f16::from_f32(1.5)),
        "at_add_i32_bool" => z.at(s![0]).add(true),
        "at_add_i32_past_max" => z.at(s![0]).add(1i64 << 31),
        "at_add_u32_floats" => u.at(s![..]).add(vec![1.7f32, -1.7, 2.0, 1.0]),
        "at_set_u32_neg" => u.at(s![0]).set(-1),
        "at_add_u32_neg" => u.at(s![1]).add(-1),
        "at_set_u32_negf" => u.at(s![0]).set(-1.5),
        "at_add_f16_small" => h.at(s![0]).add(1e-4),
        "at_set_f16_big" => h.at(s![0]).set(70000.0),
        "var_ddof2" => np::var(f, None, 2, false),
        "var_ddof3" => np::var(f, None, 3, false),
        "var_ddof4" => np::var(f, None, 4, false),
        "std_ddof3" => np::std(f, None, 3, false),
        "std_ddof5" => np::std(f, None, 5, false),
        "var_int_ddof3" => np::var(vec![1i32, 2, 4], None, 3, false),
        "var_single_ddof1" => np::var(vec![5.0f32], None, 1, false),
        "var_empty" => np::var(np::zeros(&[0], DType::Float32).unwrap(), None, 0, false),
        "var_axis_ddof2" => np::var(
            np::array([[1.0f32, 2.0], [3.0, 5.0]]).unwrap(),
            Some(&[1]),
            2,
            false,
        ),
        "index_past_end" => ar.slice(s![7]),
        "index_before_start" => ar.slice(s![-7]),
        "index_row_past_end" => m.slice(s![5]),
        "index_col_before_start" => m.slice(s![.., -4]),
        "index_empty_axis" => np::zeros(&[0], DType::Float32).unwrap().slice(s![0]),
        "at_get_past_end" => ar.at(s![7]).get(),
        "at_get_fill" => ar.at(s![7]).mode(IndexMode::Fill).fill_value(-1.0).get(),
        "at_add_before_start" => ar.at(s![-9]).add(10),
        "at_add_clip" => ar.at(s![7]).mode(IndexMode::Clip).add(10),
        "at_set_2d_past_end" => m.at(s![5, 1]).set(-1),
        "at_set_2d_row" => m.at(s![1, 1..]).set(-1),
        "at_get_2d_fill" => m
            .at(s![7, 1..])
            .mode(IndexMode::Fill)
            .fill_value(-9.0)
            .get(),
        "fabs_i32" => np::fabs(i),
        "fabs_bool" => np::fabs(b),
        "fabs_special" => np::fabs(special()),
        "fabs_f16" => np::fabs(np::negative(h).unwrap()),
        "isneginf_special" => np::isneginf(special()),
        "isposinf_special" => np::isposinf(special()),
        "isneginf_i32" => np::isneginf(i),
        "isposinf_bool" => np::isposinf(b),
        "acos_special" => np::acos(np::array([-1.0f32, -0.5, 0.0, 1.0, 1.5, f32::NAN]).unwrap()),
        "acosh_f" => np::acosh(f),
        "asin_half" => np::asin(np::array([-1.0f32, -0.5, 0.0, 0.5, 2.0]).unwrap()),
        "asinh_f" => np::asinh(np::negative(f).unwrap()),
        "atan_f" => np::atan(f),
        "atanh_half" => np::atanh(np::array([-1.0f32, -0.5, 0.0, 0.5, 1.0]).unwrap()),
        "atan2_ff" => np::atan2(f, np::negative(f).unwrap()),
        "atan2_i32" => np::atan2(i, 2),
        "pow_i32" => np::pow(i, 2),
        "pow_i32_neg" => np::pow(i, -1),
        "pow_f_weak" => np::pow(f, 0.5),
        "bitwise_invert_i32" => np::bitwise_invert(i),
        "bitwise_invert_bool" => np::bitwise_invert(b),
        "bitwise_left_shift_u32" => np::bitwise_left_shift(u, 3),
        "bitwise_right_shift_i32" => np::bitwise_right_shift(i, 1),
        "degrees_f" => np::degrees(f),
        "radians_i32" => np::radians(i),
        "amax_m" => np::amax(m, Some(&[1]), false),
        "amin_m" => np::amin(m, None, false),
        "ptp_m" => np::ptp(m, Some(&[0]), false),
        "ptp_f_keep" => np::ptp(f, None, true),
        "ptp_special" => np::ptp(special(), None, false),
        "ptp_bool" => np::ptp(b, None, false),
        "cumulative_sum_m1" => np::cumulative_sum(m, Some(1), None, true),
        "cumulative_sum_1d" => np::cumulative_sum(ar, None, None, false),
        "cumulative_sum_2d_no_axis" => np::cumulative_sum(m, None, None, false),
        "cumulative_sum_0d" => np::cumulative_sum(np::array(3).unwrap(), None, None, false),
        "cumulative_sum_bool" => np::cumulative_sum(b, None, None, false),
        "cumulative_sum_f16" => np::cumulative_sum(h, None, None, true),
        "cumulative_prod_dtype" => np::cumulative_prod(i, None, Some(DType::Float32), true),
        "sum_with_i8_wrap" => np::sum_with([100i8, 100, 100], None, false, Some(DType::Int8)),
        "sum_with_f_to_i32" => np::sum_with(af(&[1.5, 2.5, 3.7]), None, false, Some(DType::Int32)),
        "sum_with_bool" => np::sum_with(af(&[0.5, 0.0, 0.25]), None, false, Some(DType::Bool)),
        "sum_with_u8_to_f16" => np::sum_with([200u8, 100], None, false, Some(DType::Float16)),
        "sum_with_axis_keep" => np::sum_with(m, Some(&[0]), true, Some(DType::Float32)),
        "sum_with_bf16_to_f32" => np::sum_with(
            af(&[1.5, 2.5, 1e-3]).astype(DType::BFloat16).unwrap(),
            None,
            false,
            Some(DType::Float32),
        ),
        "prod_with_i8" => np::prod_with([100i8, 3], None, false, Some(DType::Int8)),
        "prod_with_bool" => np::prod_with([true, false], None, false, Some(DType::Bool)),
        "prod_with_i16" => np::prod_with([100i8, 100, 100], None, false, Some(DType::Int16)),
        "mean_with_i32" => np::mean_with(ai(&[1, 2, 4]), None, false, Some(DType::Int32)),
        "mean_with_neg" => np::mean_with(ai(&[-7, 0, 0]), None, false, Some(DType::Int32)),
        "mean_with_f_to_i32" => {
            np::mean_with(af(&[1.5, 2.5, 3.7]), None, false, Some(DType::Int32))
        }
        "mean_with_f16" => np::mean_with(f, None, false, Some(DType::Float16)),
        "mean_with_axis" => np::mean_with(m, Some(&[1]), false, Some(DType::Float32)),
        "mean_with_u8" => np::mean_with([250u8, 10], None, false, Some(DType::UInt8)),
        "mean_with_bool" => np::mean_with(f, None, false, Some(DType::Bool)),
        "nansum_with_i32" => np::nansum_with(af(&[1.5, nan, 2.5]), None, false, Some(DType::Int32)),
        "nanprod_with_i32" => {
            np::nanprod_with(af(&[1.5, nan, 2.5]), None, false, Some(DType::Int32))
        }
        "nanmean_with_i32" => {
            np::nanmean_with(af(&[1.5, nan, 2.5]), None, false, Some(DType::Int32))
        }
        "nanmean_with_f16" => np::nanmean_with(
            af(&[1.5, nan, 2.5, 1.0 / 3.0]),
            None,
            false,
            Some(DType::Float16),
        ),
        "cumsum_with_i8" => np::cumsum_with([100i8, 100, 100], None, Some(DType::Int8)),
        "cumsum_with_f_to_i32" => np::cumsum_with(af(&[1.5, 2.5, 3.7]), None, Some(DType::Int32)),
        "cumsum_with_bool" => np::cumsum_with([false, true, false], None, Some(DType::Bool)),
        "cumsum_with_f16" => np::cumsum_with(af(&[1.5, 2.5, 3.7]), None, Some(DType::Float16)),
        "cumsum_with_m_axis" => np::cumsum_with(m, Some(0), Some(DType::UInt8)),
        "cumprod_with_bool" => np::cumprod_with([true, false, true], None, Some(DType::Bool)),
        "cumprod_with_f32" => np::cumprod_with([100i8, 100, 100], None, Some(DType::Float32)),
        "sum_with_f16_overflow" => {
            np::sum_with(af(&[7e4, -7e4]), None, false, Some(DType::Float16))
        }
        "sum_with_i32_to_f16" => np::sum_with(ai(&[2049, 1]), None, false, Some(DType::Float16)),
        "mean_with_count_wraps" => np::mean_with(
            np::ones(&[200], DType::Int8).unwrap(),
            None,
            false,
            Some(DType::Int8),
        ),
        "nanmean_with_int_f16" => {
            np::nanmean_with(ai(&[1, 2, 4]), None, false, Some(DType::Float16))
        }
        "cumulative_prod_m0" => np::cumulative_prod(m, Some(0), None, false),
        "permute_dims_m" => np::permute_dims(m, &[1, 0]),
        "matrix_transpose_m" => np::matrix_transpose(m),
        "matrix_transpose_1d" => np::matrix_transpose(ar),
        "fliplr_m" => np::fliplr(m),
        "flipud_m" => np::flipud(m),
        "flipud_1d" => np::flipud(ar),
        "fliplr_1d" => np::fliplr(ar),
        "concat_none" => np::concat([m.clone(), ar.clone()], None),
        "concat_axis0" => np::concat([m.clone(), m.clone()], Some(0)),
        "concat_promote" => np::concat([ar.clone(), f.clone()], Some(0)),
        "copy_m" => np::copy(m),
        "heaviside_special" => np::heaviside(special(), 0.5),
        "heaviside_i32" => np::heaviside(i, np::array([7, 7, 7, 7]).unwrap()),
        "sinc_special" => {
            let inf = f32::INFINITY;
            np::sinc(np::array([0.0f32, -0.0, 0.5, 1.0, -2.5, 1e-20, inf, f32::NAN]).unwrap())
        }
        "sinc_i32" => np::sinc(i),
        "rot90_m" => np::rot90(m, 1, (0, 1)),
        "rot90_m_k2" => np::rot90(m, 2, (0, 1)),
        "rot90_m_k3" => np::rot90(m, -1, (0, 1)),
        "rot90_t_axes" => np::rot90(
            np::reshape(np::arange(24).unwrap(), &[2, 3, 4]).unwrap(),
            1,
            (2, 0),
        ),
        "rot90_1d" => np::rot90(ar, 1, (0, 1)),
        "hsplit_m" => np::hsplit(m, 3).map(|mut v| v.remove(1)),
        "hsplit_1d" => np::hsplit(np::arange(6).unwrap(), 2).map(|mut v| v.remove(1)),
        "vsplit_m" => np::vsplit(m, 2).map(|mut v| v.remove(1)),
        "vsplit_1d" => np::vsplit(ar, 1).map(|mut v| v.remove(0)),
        "dsplit_t" => np::dsplit(np::reshape(np::arange(24).unwrap(), &[2, 3, 4]).unwrap(), 2)
            .map(|mut v| v.remove(1)),
        "column_stack_1d" => np::column_stack([ar.clone(), np::multiply(ar, 2).unwrap()]),
        "column_stack_mixed" => {
            np::column_stack([np::arange(2).unwrap(), m.clone(), f.slice(s![..2]).unwrap()])
        }
        "logspace_10" => np::logspace(0.0, 3.0, 4, true, 10.0),
        "logspace_base2" => np::logspace(-1.0, 4.0, 6, false, 2.0),
        "logspace_i32" => np::logspace_with(0.0, 2.0, 5, true, 10.0, DType::Int32),
        "logspace_i32_exact" => np::logspace_with(0.0, 3.0, 4, true, 10.0, DType::Int32),
        "logspace_u8_base2" => np::logspace_with(0.0, 7.0, 8, true, 2.0, DType::UInt8),
        "logspace_f16" => np::logspace_with(0.0, 1.0, 3, true, 10.0, DType::Float16),
        "logspace_i16_open" => np::logspace_with(0.0, 2.0, 5, false, 10.0, DType::Int16),
        "logspace_i8_down" => np::logspace_with(1.0, 0.0, 3, true, 10.0, DType::Int8),
        "tri_3" => np::tri(3, None, 0, None),
        "tri_rect" => np::tri(2, Some(4), -1, Some(DType::Int32)),
        "diff_i" => np::diff(i, 1, -1, None, None),
        "diff_n2" => np::diff(af(&[1.0, 4.0, 9.0, 16.0, 25.0]), 2, -1, None, None),
        "diff_bool" => np::diff(b, 1, -1, None, None),
        "diff_m0" => np::diff(m, 1, 0, None, None),
        "diff_prepend" => np::diff(
            ar,
            1,
            -1,
            Some(&np::asarray(7).unwrap()),
            Some(&ai(&[1, 2])),
        ),
        "diff_f16" => np::diff(
            np::astype(af(&[1.0, 2.5, 2.0]), DType::Float16).unwrap(),
            1,
            -1,
            None,
            None,
        ),
        "ediff1d_m" => np::ediff1d(m, Some(&af(&[-1.5, 2.0])), Some(&ai(&[9]))),
        "trapezoid_i" => np::trapezoid(i, None, 1.0, -1),
        "trapezoid_x" => np::trapezoid(m, Some(&af(&[0.0, 0.5, 2.0])), 1.0, -1),
        "trapezoid_dx_axis0" => np::trapezoid(m, None, 2.0, 0),
        "average_i" => np::average(i, None, None, false),
        "average_w" => np::average(m, Some(&[1]), Some(&af(&[1.0, 0.0, 3.0])), false),
        "average_w_full" => np::average(f, None, Some(f), false),
        "cov_m" => np::cov(cov_m(), None, true, false, None),
        "cov_1d" => np::cov(af(&[1.0, 2.0, 4.0]), None, true, false, None),
        "cov_y_cols" => np::cov(
            m,
            Some(&np::transpose(m2(&[1, 5, 2, 3, 0, 9], 3, 2), None).unwrap()),
            false,
            true,
            None,
        ),
        "cov_ddof" => np::cov(f, None, true, false, Some(3)),
        "corrcoef_m" => np::corrcoef(
            np::reshape(
                af(&[1.0, 2.0, 4.0, 7.0, 2.0, 1.0, 0.5, 3.0, 7.0, 4.0, 2.0, 1.0]),
                &[3, 4],
            )
            .unwrap(),
            None,
            true,
        ),
        "corrcoef_1d" => np::corrcoef(f, None, true),
        "quantile_lin" => np::quantile(
            q5(),
            af(&[0.0, 0.1, 0.5, 0.77, 1.0]),
            None,
            QM::Linear,
            false,
        ),
        "quantile_i32" => np::quantile(i, 0.4, None, QM::Linear, false),
        "quantile_axis" => np::quantile(m, af(&[0.25, 0.5]), Some(&[1]), QM::Linear, true),
        "quantile_axes" => np::quantile(
            np::reshape(
                np::arange(24).unwrap().astype(DType::Float32).unwrap(),
                &[2, 3, 4],
            )
            .unwrap(),
            0.3,
            Some(&[0, 2]),
            QM::Linear,
            false,
        ),
        "quantile_lower" => np::quantile(q5(), af(&[0.1, 0.6]), None, QM::Lower, false),
        "quantile_higher" => np::quantile(q5(), af(&[0.1, 0.6]), None, QM::Higher, false),
        "quantile_midpoint" => np::quantile(q5(), af(&[0.1, 0.6]), None, QM::Midpoint, false),
        "quantile_nearest" => {
            np::quantile(q5(), af(&[0.125, 0.375, 0.6]), None, QM::Nearest, false)
        }
        "quantile_inverted_cdf" => np::quantile(
            q5(),
            af(&[0.0, 0.2, 0.21, 0.5, 1.0]),
            None,
            QM::InvertedCdf,
            false,
        ),
        "quantile_nan" => np::quantile(
            np::reshape(af(&[1.0, nan, 3.0, 1.0, 2.0, 3.0]), &[2, 3]).unwrap(),
            0.5,
            Some(&[1]),
            QM::Linear,
            false,
        ),
        "quantile_f16" => np::quantile(
            np::astype(af(&[1.0, 2.0, 7.0]), DType::Float16).unwrap(),
            0.3,
            None,
            QM::Linear,
            false,
        ),
        "quantile_int_q" => np::quantile(f, 1, None, QM::Linear, false),
        "quantile_keep_all" => np::quantile(m, 0.5, None, QM::Linear, true),
        "percentile_m" => np::percentile(m, af(&[10.0, 50.0, 90.0]), Some(&[0]), QM::Linear, false),
        "percentile_i_q" => np::percentile(f, 50, None, QM::Linear, false),
        "nanquantile_m" => np::nanquantile(
            np::reshape(af(&[1.0, nan, 3.0, 4.0, nan, nan, nan, nan]), &[2, 4]).unwrap(),
            af(&[0.0, 0.5, 0.9]),
            Some(&[1]),
            QM::Linear,
            false,
        ),
        "nanpercentile_1d" => np::nanpercentile(
            af(&[nan, 5.0, 1.0, nan, 2.0]),
            75.0,
            None,
            QM::Midpoint,
            false,
        ),
        "nanmedian_m" => np::nanmedian(nan24(), Some(&[1]), false),
        "nanmedian_i" => np::nanmedian(i, None, false),
        "nanprod_sp" => np::nanprod(af(&[2.0, nan, -3.0]), None, false),
        "nanprod_i" => np::nanprod(i, None, false),
        "nanvar_m" => np::nanvar(nan24(), Some(&[1]), 0, false),
        "nanvar_ddof" => np::nanvar(nan24(), Some(&[1]), 1, false),
        "nanstd_keep" => np::nanstd(nan24(), Some(&[0]), 0, true),
        "nanstd_i" => np::nanstd(i, None, 0, false),
        "nanargmax_m" => np::nanargmax(
            np::reshape(af(&[1.0, nan, 3.0, nan, nan, nan, nan, 5.0, -1.0]), &[3, 3]).unwrap(),
            Some(1),
            false,
        ),
        "nanargmin_flat" => np::nanargmin(
            np::reshape(af(&[1.0, nan, 3.0, nan, -2.0, nan]), &[2, 3]).unwrap(),
            None,
            false,
        ),
        "nanargmax_i" => np::nanargmax(i, None, true),
        "nancumsum_sp" => np::nancumsum(af(&[1.0, nan, 2.5, nan]), None),
        "nancumprod_m" => np::nancumprod(
            np::reshape(af(&[1.0, nan, 2.5, 2.0]), &[2, 2]).unwrap(),
            Some(0),
        ),
        "searchsorted_left" => np::searchsorted(
            ai(&[1, 2, 2, 3, 5]),
            ai(&[-1, 2, 4, 5, 9]),
            Side::Left,
            None,
        ),
        "searchsorted_right" => np::searchsorted(
            ai(&[1, 2, 2, 3, 5]),
            ai(&[-1, 2, 4, 5, 9]),
            Side::Right,
            None,
        ),
        "searchsorted_nan" => np::searchsorted(
            af(&[-inf, 0.0, 1.0, inf, nan]),
            af(&[nan, inf, -inf, 0.5, -0.0]),
            Side::Left,
            None,
        ),
        "searchsorted_nan_right" => np::searchsorted(
            af(&[-inf, 0.0, 1.0, inf, nan]),
            af(&[nan, inf, -inf, 0.5, -0.0]),
            Side::Right,
            None,
        ),
        "searchsorted_sorter" => np::searchsorted(
            ai(&[4, 3, 5, 1, 2]),
            ai(&[0, 3, 8, 2]),
            Side::Left,
            Some(&ai(&[3, 4, 1, 0, 2])),
        ),
        "searchsorted_scalar_m" => np::searchsorted(f, m, Side::Left, None),
        "searchsorted_empty" => np::searchsorted(af(&[]), f, Side::Left, None),
        "digitize_inc" => np::digitize(dig(), af(&[1.0, 2.0, 3.0]), false),
        "digitize_right" => np::digitize(dig(), af(&[1.0, 2.0, 3.0]), true),
        "digitize_dec" => np::digitize(dig(), af(&[3.0, 2.0, 1.0]), false),
        "digitize_dec_right" => np::digitize(dig(), af(&[3.0, 2.0, 1.0]), true),
        "bincount_1" => np::bincount(ai(&[0, 1, 1, 3, -2]), None, 0, Some(5)),
        "bincount_w" => np::bincount(
            ai(&[0, 1, 1, 3]),
            Some(&af(&[0.5, 1.0, 2.0, 4.0])),
            0,
            Some(4),
        ),
        "bincount_drop" => np::bincount(ai(&[0, 1, 7]), None, 0, Some(3)),
        "histogram_count" => {
            np::histogram(af(&[1.0, 2.0, 2.5, 4.0, nan, 3.0]), 3, None, None, false).map(|h| h.0)
        }
        "histogram_edges" => {
            np::histogram(af(&[1.0, 2.0, 2.5, 4.0, 3.0]), 3, None, None, false).map(|h| h.1)
        }
        "histogram_range" => np::histogram(
            af(&[-1.0, 2.0, 2.5, 4.0, 3.0, 5.0]),
            4,
            Some((0.0, 4.0)),
            None,
            false,
        )
        .map(|h| h.0),
        "histogram_given" => {
            np::histogram(hist6(), af(&[0.0, 1.0, 5.0, 10.0]), None, None, false).map(|h| h.0)
        }
        "histogram_weights" => np::histogram(
            af(&[0.0, 1.0, 2.0, 5.0]),
            2,
            None,
            Some(&af(&[1.0, 2.0, 3.0, 4.0])),
            false,
        )
        .map(|h| h.0),
        "histogram_density" => {
            np::histogram(hist6(), af(&[0.0, 1.0, 5.0, 10.0]), None, None, true).map(|h| h.0)
        }
        "histogram_i32" => np::histogram(i, 2, None, None, false).map(|h| h.0),
        "histogram_same" => np::histogram(af(&[3.0, 3.0]), 2, None, None, false).map(|h| h.1),
        "histogram_bin_edges_r" => np::histogram_bin_edges(af(&[1.0, 2.0]), 4, Some((0.0, 1.0))),
        "interp_basic" => np::interp(
            af(&[-1.0, 0.0, 0.5, 1.5, 2.0, 3.0, nan]),
            af(&[0.0, 1.0, 2.0]),
            af(&[0.0, 10.0, 5.0]),
            None,
            None,
            None,
        ),
        "interp_lr" => np::interp(
            af(&[-1.0, 3.0]),
            af(&[0.0, 1.0, 2.0]),
            af(&[0.0, 10.0, 5.0]),
            Some(-7.0),
            Some(7.5),
            None,
        ),
        "interp_int" => np::interp(i, ai(&[-3, 0, 2]), ai(&[1, 2, 4]), None, None, None),
        "interp_period" => np::interp(
            af(&[-10.0, 190.0, 350.0, 5.0]),
            af(&[350.0, 10.0, 90.0]),
            af(&[1.0, 3.0, 5.0]),
            None,
            None,
            Some(360.0),
        ),
        "interp_repeat" => np::interp(
            af(&[1.0]),
            af(&[0.0, 1.0, 1.0, 2.0]),
            af(&[0.0, 1.0, 3.0, 4.0]),
            None,
            None,
            None,
        ),
        "unique_size" => np::unique(ai(&[3, 1, 1, 7]), Some(6), None),
        "unique_size_fill" => np::unique(ai(&[3, 1, 1, 7]), Some(5), Some(-9.0)),
        "unique_size_cut" => np::unique(ai(&[3, 1, 1, 7]), Some(2), None),
        "unique_counts_size" => np::unique_counts(ai(&[3, 1, 1, 7]), Some(5), None).map(|u| u.1),
        "unique_all_indices" => {
            np::unique_all(ai(&[3, 1, 1, 7, 3]), Some(6), None).map(|u| u.indices)
        }
        "unique_all_counts" => {
            np::unique_all(ai(&[3, 1, 1, 7, 3]), Some(6), None).map(|u| u.counts)
        }
        "unique_all_values" => {
            np::unique_all(ai(&[3, 1, 1, 7, 3]), Some(6), None).map(|u| u.values)
        }
        "unique_all_inverse" => {
            np::unique_all(ai(&[3, 1, 1, 7, 3]), Some(2), None).map(|u| u.inverse_indices)
        }
        "unique_opt_size_values" | "unique_opt_size_index" | "unique_opt_size_counts" => {
            let o = np::UniqueOptions {
                return_index: true,
                return_counts: true,
                size: Some(6),
                fill_value: Some(-1.0),
                ..Default::default()
            };
            np::unique_with(
                np::array([[3.0f32, 1.0], [nan, 3.0], [nan, 0.0]]).unwrap(),
                o,
            )
            .map(|u| match name {
                "unique_opt_size_values" => u.values,
                "unique_opt_size_index" => u.indices.unwrap(),
                _ => u.counts.unwrap(),
            })
        }
        "unique_opt_cut_inverse" => {
            let o = np::UniqueOptions {
                return_inverse: true,
                size: Some(2),
                ..Default::default()
            };
            np::unique_with(
                np::array([[3.0f32, 1.0], [nan, 3.0], [nan, 0.0]]).unwrap(),
                o,
            )
            .map(|u| u.inverse.unwrap())
        }
        "isin_i" => np::isin(ai(&[1, 2, 3, 4]), ai(&[4, 2]), false),
        "isin_invert" => np::isin(m, m2(&[4, 2, 0, 9], 2, 2), true),
        "isin_nan" => np::isin(af(&[2.0, nan, 1.0, nan, 2.0]), af(&[nan, 2.0]), false),
        "isin_promote" => np::isin(i, f, false),
        "intersect1d_size" => np::intersect1d(ai(&[0, 3, 3]), ai(&[3, 5, 3]), false, Some(3), None),
        "union1d_size" => np::union1d(ai(&[4, 3]), ai(&[3, 5]), Some(5), None),
        "union1d_fill" => np::union1d(ai(&[4, 3]), ai(&[3, 5]), Some(5), Some(0.0)),
        "setdiff1d_size" => np::setdiff1d(ai(&[5, 3, 1, 3, 8]), ai(&[3, 5]), false, Some(4), None),
        "setdiff1d_fill" => np::setdiff1d(
            ai(&[5, 3, 1, 3, 8]),
            ai(&[3, 5]),
            false,
            Some(4),
            Some(-1.0),
        ),
        "setxor1d_size" => np::setxor1d(ai(&[0, 3, 5, 5]), ai(&[3, 9]), false, Some(4), None),
        "setxor1d_empty" => np::setxor1d(ai(&[3]), ai(&[3]), false, Some(2), None),
        "meshgrid_xy" => np::meshgrid(
            [np::arange(3).unwrap(), np::arange(2).unwrap()],
            false,
            np::Indexing::Xy,
        )
        .map(|mut v| v.remove(1)),
        "meshgrid_ij_sparse" => {
            np::meshgrid([np::arange(3).unwrap(), f.clone()], true, np::Indexing::Ij)
                .map(|mut v| v.remove(1))
        }
        "meshgrid_3" => np::meshgrid(
            [
                np::arange(2).unwrap(),
                np::arange(3).unwrap(),
                np::arange(2).unwrap(),
            ],
            false,
            np::Indexing::Xy,
        )
        .map(|mut v| v.remove(0)),
        "indices_23" => np::indices(&[2, 3], None),
        "ix_b" => np::ix_([ai(&[0, 2]), ai(&[1])]).map(|mut v| v.remove(0)),
        "diag_1d_k" => np::diag(ai(&[1, 2]), -1),
        "diag_2d" => np::diag(m, 1),
        "diagflat_m" => np::diagflat(m, 1),
        "tril_indices_r" => np::tril_indices(3, 0, Some(4)).map(|t| t.1),
        "triu_indices_k" => np::triu_indices(3, 1, None).map(|t| t.0),
        "unravel_index_oob" => {
            np::unravel_index(ai(&[-1, 7, 100, -7, 3]), &[2, 3]).map(|mut v| v.remove(0))
        }
        "unravel_index_oob1" => {
            np::unravel_index(ai(&[-1, 7, 100, -7, 3]), &[2, 3]).map(|mut v| v.remove(1))
        }
        "vander_f" => np::vander(f, None, false),
        "vander_inc" => np::vander(i, Some(3), true),
        "vander_bool" => np::vander(b, Some(2), false),
        "kron_m" => np::kron(m, m2(&[1, -1], 1, 2)),
        "kron_1d_2d" => np::kron(af(&[1.0, 2.0]), m),
        "append_none" => np::append(m, f, None),
        "append_axis" => np::append(m, m, Some(1)),
        "resize_up" => np::resize(f, &[2, 4]),
        "rollaxis_t" => np::rollaxis(
            np::reshape(np::arange(24).unwrap(), &[2, 3, 4]).unwrap(),
            2,
            1,
        ),
        "unstack_m" => np::unstack(m, 1).map(|mut v| v.remove(2)),
        "array_equiv_b" => np::array_equiv(m, m2(&[0, 1, 2, 0, 1, 2], 2, 3)),
        "array_equiv_bcast" => np::array_equiv(m2(&[1, 1], 1, 2), 1),
        "array_equiv_no" => np::array_equiv(m, f),
        "fill_diagonal_vals" => np::fill_diagonal(
            np::zeros(&[3, 3], DType::Float32).unwrap(),
            af(&[1.0, 2.0]),
            false,
        ),
        "fill_diagonal_notwrap" => {
            np::fill_diagonal(np::zeros(&[7, 3], DType::Float32).unwrap(), 5.0, false)
        }
        "fill_diagonal_wide" => {
            np::fill_diagonal(np::zeros(&[2, 4], DType::Int32).unwrap(), 9, false)
        }
        "fill_diagonal_3d" => {
            np::fill_diagonal(np::zeros(&[2, 2, 2], DType::Float32).unwrap(), 3.0, false)
        }
        "flatnonzero_m" => np::flatnonzero(m, Some(7), Some(-1.0)),
        "hamming_5" => np::hamming(5),
        "hanning_4" => np::hanning(4),
        "blackman_4" => np::blackman(4),
        "bartlett_6" => np::bartlett(6),
        "hamming_1" => np::hamming(1),
        "polyval_i" => np::polyval(ai(&[1, 0, -2]), i),
        "polyval_f" => np::polyval(af(&[0.5, -1.0, 2.0]), f),
        "polyadd_diff" => np::polyadd(ai(&[1, 2, 3]), af(&[10.0, 20.0])),
        "polysub_diff" => np::polysub(af(&[1.0]), ai(&[2, 3, 4])),
        "polyder_2" => np::polyder(ai(&[1, 2, 3, 4]), 2),
        "polyder_f" => np::polyder(af(&[0.5, 2.0, 3.0]), 1),
        "polyint_k" => np::polyint(ai(&[3, 2, 1]), 2, Some(&[1.0, -2.0])),
        "polyint_1" => np::polyint(af(&[6.0, 2.0]), 1, None),
        "cross_3" => np::cross(ai(&[1, 2, 3]), ai(&[4, 5, 6]), -1),
        "cross_2" => np::cross(
            np::reshape(af(&[1.0, 2.0, 3.0, 4.0]), &[2, 2]).unwrap(),
            af(&[5.0, 7.0]),
            -1,
        ),
        "cross_23" => np::cross(ai(&[1, 2]), ai(&[4, 5, 6]), -1),
        "cross_axis0" => np::cross(
            m2(&[0, 1, 2, 3, 4, 5], 3, 2),
            np::ones(&[3, 2], DType::Int32).unwrap(),
            0,
        ),
        "matvec_m" => np::matvec(m, ai(&[1, -1, 2])),
        "vecmat_m" => np::vecmat(af(&[1.0, -1.0]), m),
        "vecdot_m" => np::vecdot(m, m, -1),
        "vecdot_axis0" => np::vecdot(m, np::reshape(af(&[1.0, 2.0]), &[2, 1]).unwrap(), 0),
        "around_f" => np::around(af(&[1.25, -2.55, 0.5, 1.5]), 1),
        "divmod_q" => np::divmod(ai(&[7, -7, 7, -7]), ai(&[2, 2, -2, -2])).map(|t| t.0),
        "divmod_r" => np::divmod(af(&[7.5, -7.5]), 2).map(|t| t.1),
        "modf_frac" => np::modf(af(&[-3.5, 2.25, -0.0, inf, -inf, nan])).map(|t| t.0),
        "modf_whole" => np::modf(af(&[-3.5, 2.25, -0.0, inf, -inf, nan])).map(|t| t.1),
        "modf_i" => np::modf(i).map(|t| t.1),
        "frexp_m" => {
            np::frexp(af(&[8.0, -0.375, 0.0, -0.0, 2e-38, -3e38, inf, nan, 1.0])).map(|t| t.0)
        }
        "frexp_e" => {
            np::frexp(af(&[8.0, -0.375, 0.0, -0.0, 2e-38, -3e38, inf, nan, 1.0])).map(|t| t.1)
        }
        "frexp_f16" => {
            np::frexp(np::astype(af(&[6e-8, 3.0, -65504.0]), DType::Float16).unwrap()).map(|t| t.0)
        }
        "frexp_f16_e" => {
            np::frexp(np::astype(af(&[6e-8, 3.0, -65504.0]), DType::Float16).unwrap()).map(|t| t.1)
        }
        "ldexp_f" => np::ldexp(
            af(&[0.75, 2e-38, 3.0, -0.0, inf, 1.5]),
            ai(&[3, 100, -120, 5, 1, 127]),
        ),
        "ldexp_i" => np::ldexp(i, 2),
        "ldexp_float_exp" => np::ldexp(f, f),
        "float_power_i" => np::float_power(i, 2),
        "float_power_f16" => np::float_power(h, h),
        "select_basic" => np::select(
            [np::less(ar, 2).unwrap(), np::greater(ar, 3).unwrap()],
            [ar.clone(), np::multiply(ar, 10).unwrap()],
            -1,
        ),
        "select_promote" => np::select(
            [
                np::array([true, false]).unwrap(),
                np::array([true, true]).unwrap(),
            ],
            [ai(&[1, 2]), af(&[0.5, 1.5])],
            0,
        ),
        "select_overlap" => np::select(
            [np::greater(ar, 0).unwrap(), np::greater(ar, 2).unwrap()],
            [np::full_like(ar, 7).unwrap(), np::full_like(ar, 9).unwrap()],
            0,
        ),
        "choose_wrap" => np::choose(
            ai(&[0, 3, -1, 1]),
            [ai(&[1, 2, 3, 4]), ai(&[10, 20, 30, 40])],
            IndexMode::Wrap,
        ),
        "choose_clip" => np::choose(
            m2(&[0, 3, -1, 1], 2, 2),
            [af(&[1.0, 2.0]), np::asarray(5).unwrap()],
            IndexMode::Clip,
        ),
        "piecewise_fn" => {
            let x = af(&[-2.0, -0.5, 0.5, 2.0]);
            np::piecewise(
                &x,
                [np::less(&x, 0.0).unwrap()],
                vec![np::Piece::func(|v| np::negative(v)), np::Piece::Value(1.0)],
            )
        }
        "piecewise_last" => np::piecewise(
            ar,
            [np::greater(ar, 1).unwrap(), np::greater(ar, 3).unwrap()],
            vec![np::Piece::Value(10.0), np::Piece::Value(20.0)],
        ),
        "place_m" => np::place(
            m,
            np::equal(np::remainder(m, 2).unwrap(), 1).unwrap(),
            ai(&[7, 8]),
        ),
        "put_drop" => np::put(ar, ai(&[0, 9, -1]), ai(&[10, 20, 30]), IndexMode::Fill),
        "put_wrap" => np::put(ar, ai(&[0, 9]), ai(&[10, 20]), IndexMode::Wrap),
        "put_clip_m" => np::put(m, ai(&[1, 100]), 9, IndexMode::Clip),
        "put_along_axis_m" => np::put_along_axis(
            m,
            m2(&[2, 0], 2, 1),
            m2(&[70, 80], 2, 1),
            Some(1),
            IndexMode::Fill,
        ),
        "put_along_axis_none" => np::put_along_axis(m, ai(&[5, 0]), 9, None, IndexMode::Fill),
        "delete_i" => np::delete(ar, &[1, -1, 1], None),
        "delete_axis" => np::delete(m, &[0, 2], Some(1)),
        "insert_flat" => np::insert(ar, &[1, 1, 5], ai(&[10, 20, 30]), None),
        "insert_axis" => np::insert(m, &[1], ai(&[9, 8]), Some(1)),
        "insert_bcast" => np::insert(m, &[0, 2], 7, Some(0)),
        "ravel_multi_index_wrap" => {
            np::ravel_multi_index([ai(&[3, -1]), ai(&[4, 1])], &[2, 3], IndexMode::Wrap)
        }
        "ravel_multi_index_clip" => {
            np::ravel_multi_index([ai(&[3, -1]), ai(&[4, 1])], &[2, 3], IndexMode::Clip)
        }
        "ravel_multi_index_f" => np::ravel_multi_index_with(
            [ai(&[1, 2, 0]), ai(&[3, 0, 1])],
            &[3, 4],
            IndexMode::Clip,
            np::Order::F,
            None,
        ),
        "ravel_multi_index_f_clip3" => np::ravel_multi_index_with(
            [ai(&[1, 5, -1]), ai(&[3, 0, 1]), ai(&[0, 1, 1])],
            &[3, 4, 2],
            IndexMode::Clip,
            np::Order::F,
            None,
        ),
        "ravel_multi_index_too_big" => np::ravel_multi_index_with(
            [ai(&[1]), ai(&[3])],
            &[70000, 70000],
            IndexMode::Clip,
            np::Order::C,
            None,
        ),
        "ravel_multi_index_f_wrap" => np::ravel_multi_index_with(
            [ai(&[1, 5, -1]), ai(&[3, 0, 1])],
            &[3, 4],
            IndexMode::Wrap,
            np::Order::F,
            None,
        ),
        "lexsort_2" => np::lexsort([ai(&[1, 2, 3, 4]), ai(&[2, 1, 2, 1])], -1),
        "lexsort_m" => np::lexsort(
            [m2(&[3, 1, 2, 1, 1, 0], 2, 3), m2(&[0, 0, 1, 1, 0, 0], 2, 3)],
            -1,
        ),
        "partition_i" => np::partition(ai(&[3, 1, 2, 1, 5, 0]), 3, -1),
        "partition_nan" => np::partition(af(&[3.0, nan, 1.0, 2.0, nan, 0.0]), 2, -1),
        "partition_m0" => np::partition(m2(&[3, 1, 0, 7, 2, 2], 3, 2), 1, 0),
        "argpartition_i" => np::argpartition(ai(&[3, 1, 2, 1, 5, 0]), 3, -1),
        "argpartition_neg" => np::argpartition(ai(&[3, 1, 2, 1, 5, 0]), -2, -1),
        "nextafter_f" => np::nextafter(
            af(&[0.0, 1.0, -1.0, 3e38, inf, -0.0, 2.0, nan]),
            af(&[1.0, 2.0, 0.0, inf, 0.0, -1.0, 2.0, 1.0]),
        ),
        "nextafter_f16" => np::nextafter(
            np::astype(
                af(&[0.0, 1.0, -1.0, 65504.0, 6e-8, 0.0009765625, 2.0]),
                DType::Float16,
            )
            .unwrap(),
            np::astype(af(&[1.0, 2.0, 0.0, inf, 0.0, 0.0, -3.0]), DType::Float16).unwrap(),
        ),
        "spacing_f" => np::spacing(af(&[0.0, 1.0, -1.0, 3.4e38, inf, nan, -0.0, 1e-30])),
        "spacing_f16" => {
            np::spacing(np::astype(af(&[0.0, 1.0, -1.0, 65504.0, 0.5]), DType::Float16).unwrap())
        }
        "spacing_i" => np::spacing(i),
        "gradient_1d" => {
            np::gradient(af(&[1.0, 2.0, 4.0, 7.0, 11.0]), &[], None).map(|mut v| v.remove(0))
        }
        "gradient_m1" => np::gradient(
            np::reshape(af(&[1.0, 2.0, 6.0, 3.0, 4.0, 5.0]), &[2, 3]).unwrap(),
            &[2.0],
            Some(&[1]),
        )
        .map(|mut v| v.remove(0)),
        "gradient_m0" => np::gradient(m, &[], Some(&[0])).map(|mut v| v.remove(0)),
        "gradient_coords_1d" => np::gradient_with(
            af(&[1.0, 2.0, 4.0, 7.0, 11.0]),
            &[af(&[0.0, 1.0, 1.5, 3.0, 4.0]).into()],
            None,
        )
        .map(|mut v| v.remove(0)),
        "gradient_coords_ax0" | "gradient_coords_ax1" | "gradient_mixed" => {
            let m = np::array([[1.0f32, 2.0, 4.0], [2.0, 5.0, 9.0]]).unwrap();
            let first: np::Spacing = match name {
                "gradient_mixed" => 2.0.into(),
                _ => af(&[0.0, 2.0]).into(),
            };
            let k = usize::from(name == "gradient_coords_ax1");
            np::gradient_with(m, &[first, af(&[0.0, 1.0, 3.0]).into()], None)
                .map(|mut v| v.remove(k))
        }
        "gradient_coords_2" => np::gradient_with(af(&[1.0, 3.0]), &[af(&[0.0, 4.0]).into()], None)
            .map(|mut v| v.remove(0)),
        "gradient_coords_int" => {
            np::gradient_with(ai(&[1, 2, 4, 7]), &[ai(&[0, 1, 3, 4]).into()], None)
                .map(|mut v| v.remove(0))
        }
        "gradient_int_f16_coords" => np::gradient_with(
            ai(&[1, 2, 4]),
            &[af(&[0.0, 1.0, 3.0]).astype(DType::Float16).unwrap().into()],
            None,
        )
        .map(|mut v| v.remove(0)),
        "gradient_f16_mixed" => np::gradient_with(
            np::array([[1.0f32, 2.0, 4.0], [2.0, 5.0, 9.0]])
                .unwrap()
                .astype(DType::Float16)
                .unwrap(),
            &[2.0.into(), af(&[0.0, 1.0, 3.0]).into()],
            None,
        )
        .map(|mut v| v.remove(0)),
        "gradient_0d_step" => np::gradient_with(
            af(&[1.0, 2.0, 4.0]),
            &[np::array(2.0f32).unwrap().into()],
            None,
        )
        .map(|mut v| v.remove(0)),
        "gradient_coords_bad_len" => {
            np::gradient_with(af(&[1.0, 2.0, 4.0]), &[af(&[0.0, 1.0]).into()], None)
                .map(|mut v| v.remove(0))
        }
        "unwrap_f" => np::unwrap(
            af(&[0.0, 3.0, 6.5, 0.5, -3.0, 12.0]),
            None,
            -1,
            std::f64::consts::TAU,
        ),
        "unwrap_period" => np::unwrap(af(&[0.0, 5.0, 9.0, 13.0, 2.0]), None, -1, 8.0),
        "unwrap_int_period" => np::unwrap(ai(&[0, 5, 11, 2]), None, -1, 8),
        "unwrap_int_odd_period" => np::unwrap(ai(&[0, 5, 11, 2, 9]), None, -1, 7),
        "unwrap_int_discont" => np::unwrap(ai(&[0, 5, 11, 2]), Some(3.0), -1, 8),
        "unwrap_int_default" => np::unwrap(ai(&[0, 5, 11, 2]), None, -1, std::f64::consts::TAU),
        "unwrap_int_float_period" => np::unwrap(ai(&[0, 5, 11, 2]), None, -1, 8.0),
        "unwrap_bool_int_period" => np::unwrap(b, None, -1, 3),
        "unwrap_discont" => np::unwrap(
            af(&[0.0, 2.0, 5.0, 2.0]),
            Some(4.0),
            -1,
            std::f64::consts::TAU,
        ),
        "convolve_full" => np::convolve(
            af(&[1.0, 2.0, 3.0]),
            af(&[0.0, 1.0, 0.5]),
            np::ConvMode::Full,
        ),
        "convolve_same" => np::convolve(ai(&[1, 2, 3, 4, 5]), ai(&[1, -1]), np::ConvMode::Same),
        "convolve_valid_swap" => np::convolve(
            af(&[1.0, -1.0]),
            af(&[1.0, 2.0, 3.0, 4.0]),
            np::ConvMode::Valid,
        ),
        "correlate_valid" => np::correlate(
            af(&[1.0, 2.0, 3.0, 4.0]),
            af(&[1.0, 0.5]),
            np::ConvMode::Valid,
        ),
        "correlate_full_swap" => {
            np::correlate(af(&[1.0, 0.5]), af(&[1.0, 2.0, 3.0]), np::ConvMode::Full)
        }
        "correlate_same" => np::correlate(
            af(&[1.0, 2.0, 3.0, 4.0]),
            af(&[1.0, 0.0, -1.0]),
            np::ConvMode::Same,
        ),
        "polymul_i" => np::polymul(ai(&[1, 2]), ai(&[1, -3, 2])),
        "polymul_f" => np::polymul(af(&[0.5, 2.0]), af(&[4.0])),
        "polymul_leading" => np::polymul(ai(&[0, 1, 2]), ai(&[0, 1, 1])),
        "polymul_empty" => np::polymul(af(&[]), af(&[1.0, 2.0])),
        "polymul_empty_i" => np::polymul(ai(&[]), ai(&[1, 2])),
        "polydiv_q" => np::polydiv(af(&[1.0, -3.0, 2.0]), af(&[1.0, -1.0])).map(|t| t.0),
        "polydiv_r" => np::polydiv(af(&[2.0, 0.0, 1.0, 5.0]), af(&[1.0, 2.0])).map(|t| t.1),
        "poly_roots" => np::poly(af(&[1.0, 2.0, -3.0])),
        "poly_i" => np::poly(ai(&[2, 2])),
        "histogramdd_2" => np::histogramdd(
            np::reshape(
                af(&[0.0, 0.0, 1.0, 2.0, 0.5, 1.9, 1.0, 0.0, 3.0, 3.0]),
                &[5, 2],
            )
            .unwrap(),
            &[np::Bins::Count(2)],
            None,
            None,
            false,
        )
        .map(|t| t.0),
        "histogramdd_edges" => np::histogramdd(
            np::reshape(af(&[0.0, 0.0, 1.0, 2.0, 0.5, 1.9]), &[3, 2]).unwrap(),
            &[np::Bins::Count(2), np::Bins::Count(3)],
            None,
            None,
            false,
        )
        .map(|mut t| t.1.remove(1)),
        "histogram2d_range" => np::histogram2d(
            af(&[0.0, 1.0, 0.5, 1.0]),
            af(&[0.0, 2.0, 1.9, 5.0]),
            &[np::Bins::Count(2)],
            Some(&[(0.0, 1.0), (0.0, 2.0)]),
            None,
            false,
        )
        .map(|t| t.0),
        "histogram2d_density" => np::histogram2d(
            af(&[0.0, 1.0, 0.5, 1.0]),
            af(&[0.0, 2.0, 1.9, 0.0]),
            &[np::Bins::Count(2)],
            None,
            None,
            true,
        )
        .map(|t| t.0),
        "can_cast_safe" | "can_cast_same_kind" => {
            let c = if name == "can_cast_safe" {
                np::Casting::Safe
            } else {
                np::Casting::SameKind
            };
            let all = [
                DType::Bool,
                DType::Int32,
                DType::UInt32,
                DType::Float16,
                DType::Float32,
            ];
            np::asarray(
                all.iter()
                    .flat_map(|&x| all.iter().map(move |&y| np::can_cast(x, y, c)))
                    .collect::<Vec<bool>>(),
            )
        }
        "isscalar_0d" => np::asarray(vec![
            np::isscalar(np::asarray(1).unwrap()).unwrap(),
            np::isscalar(ar).unwrap(),
            np::isscalar(2.5).unwrap(),
        ]),
        "i0_f" => np::i0(af(&[
            0.0, 0.5, -1.0, 3.0, 7.9, 8.0, 8.1, 20.0, -50.0, 88.0, 100.0, inf, nan,
        ])),
        "i0_i" => np::i0(i),
        "i0_f16" => np::i0(np::astype(af(&[0.0, 1.5, -4.0, 9.0]), DType::Float16).unwrap()),
        "kaiser_6" => np::kaiser(6, 14.0),
        "kaiser_5" => np::kaiser(5, 0.5),
        "kaiser_1" => np::kaiser(1, 3.0),
        "nonzero_sized" => {
            np::nonzero(m2(&[0, 3, 0, 4, 0, 5], 2, 3), Some(5), Some(-1.0)).map(|mut v| v.remove(1))
        }
        "nonzero_sized_rows" => {
            np::nonzero(m2(&[0, 3, 0, 4, 0, 5], 2, 3), Some(5), None).map(|mut v| v.remove(0))
        }
        "nonzero_truncated" => {
            np::nonzero(m2(&[0, 3, 0, 4, 0, 5], 2, 3), Some(2), None).map(|mut v| v.remove(1))
        }
        "argwhere_sized" => np::argwhere(
            np::reshape(af(&[0.0, nan, 2.0, 0.0]), &[2, 2]).unwrap(),
            Some(3),
            Some(7.0),
        ),
        "argwhere_0d_sized" => np::argwhere(np::asarray(3).unwrap(), Some(2), None),
        "argwhere_empty_sized" => np::argwhere(
            np::zeros(&[2, 0], DType::Float32).unwrap(),
            Some(2),
            Some(-2.0),
        ),
        "arange_int_half" => np::arange_with((0.5, 5.0, 1.5), DType::Int32),
        "arange_int_frac_step" => np::arange_with((-2.5, 3.0, 0.7), DType::Int32),
        "arange_int_neg_step" => np::arange_with((1.0, 0.0, -0.3), DType::Int32),
        "arange_int_neg_start" => np::arange_with((-0.5, 3.0, 1.5), DType::Int32),
        "arange_u8" => np::arange_with((0.5, 5.0, 1.5), DType::UInt8),
        "arange_u32_big" => np::arange_with((3e9, 3e9 + 3.0, 1.0), DType::UInt32),
        "arange_int_exact" => np::arange_with((1.0, 10.0, 3.0), DType::Int32),
        "geomspace_i4" => np::geomspace(1.0, 1000.0, 4, true, Some(DType::Int32)),
        "geomspace_i5" => np::geomspace(1.0, 1000.0, 5, true, Some(DType::Int32)),
        "geomspace_i16" => np::geomspace(2.0, 3e4, 7, true, Some(DType::Int16)),
        "geomspace_neg_i" => np::geomspace(-1.0, -100.0, 3, true, Some(DType::Int32)),
        "geomspace_u8" => np::geomspace(1.0, 256.0, 9, true, Some(DType::UInt8)),
        "geomspace_zero_start" => np::geomspace(0.0, 10.0, 3, true, None),
        "geomspace_zero_stop" => np::geomspace(1.0, 0.0, 3, true, None),
        "geomspace_signs" => np::geomspace(-1.0, 10.0, 3, true, None),
        "geomspace_zeros" => np::geomspace(0.0, 0.0, 2, true, None),
        "take_empty_axis" => np::take(
            np::zeros(&[0, 3], DType::Float32).unwrap(),
            ai(&[0]),
            Some(0),
        ),
        "take_empty_flat" => np::take(np::zeros(&[0], DType::Float32).unwrap(), ai(&[1, 2]), None),
        "take_empty_2d_idx" => np::take(
            np::zeros(&[0, 3], DType::Float32).unwrap(),
            np::zeros(&[2, 0], DType::Int32).unwrap(),
            Some(0),
        ),
        "take_empty_other_axis" => np::take(
            np::zeros(&[0, 3], DType::Float32).unwrap(),
            np::zeros(&[2, 0], DType::Int32).unwrap(),
            Some(1),
        ),
        "take_empty_both" => np::take(
            np::zeros(&[0, 3], DType::Float32).unwrap(),
            ai(&[]),
            Some(0),
        ),
        "average_ret_none" => np::average_returned(
            np::array([[1.0f32, 2.0, 3.0], [4.0, 5.0, 7.0]]).unwrap(),
            Some(&[1]),
            None,
            false,
        )
        .map(|r| r.1),
        "average_ret_all" => np::average_returned(i, None, None, false).map(|r| r.1),
        "average_ret_w" | "average_ret_w_avg" => np::average_returned(
            np::array([[1.0f32, 2.0, 3.0], [4.0, 5.0, 7.0]]).unwrap(),
            Some(&[1]),
            Some(&af(&[1.0, 2.0, 3.0])),
            false,
        )
        .map(|r| if name == "average_ret_w" { r.1 } else { r.0 }),
        "average_ret_keep" => np::average_returned(
            np::array([[1.0f32, 2.0, 3.0], [4.0, 5.0, 7.0]]).unwrap(),
            Some(&[0]),
            Some(&ai(&[1, 3])),
            true,
        )
        .map(|r| r.1),
        "average_ret_int" => {
            np::average_returned(ai(&[1, 2, 3]), None, Some(&ai(&[1, 1, 2])), false).map(|r| r.1)
        }
        "cov_fweights" | "cov_aweights" | "cov_both" | "cov_both_ddof0" | "cov_aweights_bias" => {
            let x = np::array([[0.0f32, 1.0, 2.0, 4.0], [2.0, 1.0, 0.0, 3.0]]).unwrap();
            let fw = ai(&[1, 2, 1, 3]);
            let aw = af(&[0.5, 1.0, 2.0, 1.0]);
            let (f, a) = match name {
                "cov_fweights" => (Some(&fw), None),
                "cov_aweights" | "cov_aweights_bias" => (None, Some(&aw)),
                _ => (Some(&fw), Some(&aw)),
            };
            let ddof = (name == "cov_both_ddof0").then_some(0);
            np::cov_with(x, None, true, name == "cov_aweights_bias", ddof, f, a)
        }
        "cov_fweights_1d" => np::cov_with(
            af(&[0.0, 1.0, 2.0, 4.0]),
            None,
            true,
            false,
            None,
            Some(&ai(&[1, 2, 1, 3])),
            None,
        ),
        "cov_weights_negative" => np::cov_with(
            np::array([[0.0f32, 1.0, 2.0, 4.0], [2.0, 1.0, 0.0, 3.0]]).unwrap(),
            None,
            true,
            false,
            None,
            Some(&ai(&[1, -2, 1, 3])),
            Some(&af(&[0.5, -1.0, 2.0, 1.0])),
        ),
        "cov_one_row_cols" => np::cov(
            np::array([[1.0f32, 2.0, 4.0]]).unwrap(),
            None,
            false,
            false,
            None,
        ),
        "cov_fweights_float" => np::cov_with(
            af(&[0.0, 1.0, 2.0, 4.0]),
            None,
            true,
            false,
            None,
            Some(&af(&[1.5, 2.0, 1.0, 3.0])),
            None,
        ),
        "cross_axisa" => np::cross_with(
            np::array([[1, 0], [0, 1], [0, 0]]).unwrap(),
            [[0, 0, 1]],
            0,
            -1,
            -1,
        ),
        "cross_axisc" => np::cross_with(
            np::reshape(np::arange(6).unwrap(), &[2, 3]).unwrap(),
            [[1, 2, 3], [0, 1, 0]],
            -1,
            -1,
            0,
        ),
        "cross_axisa_b" => {
            let a = np::reshape(np::arange(6.0).unwrap(), &[3, 2]).unwrap();
            let b = np::subtract(np::reshape(np::arange(6.0).unwrap(), &[2, 3]).unwrap(), 2.0);
            np::cross_with(a, b.unwrap(), 0, 1, -1)
        }
        "cross_axis_overrides" => {
            let a = np::reshape(np::arange(6).unwrap(), &[3, 2]).unwrap();
            np::cross(&a, np::add(&a, 1).unwrap(), 0)
        }
        "cross_axisc_2vec" => np::cross_with([[1, 2], [3, 4]], [[5, 6], [7, 9]], 0, 0, 0),
        "cross_axisc_bad" => np::cross_with([1, 2, 3], [4, 5, 6], -1, -1, 1),
        "apply_along_axis_rows" => {
            np::apply_along_axis(|r| np::multiply(r, np::sum(r, None, false)?), 1, m)
        }
        "apply_along_axis_cols" => np::apply_along_axis(
            |r| {
                let d = np::subtract(r.slice(s![0])?, r.slice(s![1])?)?;
                np::stack([np::min(r, None, false)?, np::max(r, None, false)?, d], 0)
            },
            0,
            m,
        ),
        "apply_along_axis_scalar" => {
            let a = np::power(
                np::reshape(np::arange(24.0).unwrap(), &[2, 3, 4]).unwrap(),
                2,
            );
            np::apply_along_axis(
                |r| np::subtract(np::max(r, None, false)?, np::min(r, None, false)?),
                -1,
                a.unwrap(),
            )
        }
        "apply_over_axes_sum" => np::apply_over_axes(
            |a, ax| np::sum(a, Some(&[ax]), false),
            np::reshape(np::arange(24).unwrap(), &[2, 3, 4]).unwrap(),
            &[0, 2],
        ),
        "apply_over_axes_keep" => np::apply_over_axes(|a, ax| np::cumsum(a, Some(ax)), m, &[1, 0]),
        "vectorize_broadcast" => {
            np::vectorize(|v| np::add(np::multiply(&v[0], &v[1])?, 1))(&[m.clone(), ai(&[1, 2, 3])])
        }
        "vectorize_float" => {
            let a = np::reshape(af(&[1.0, 4.0]), &[2, 1]).unwrap();
            np::vectorize(|v| {
                let (a, b) = (&v[0], &v[1]);
                np::r#where(np::greater(a, b)?, np::subtract(a, b)?, b)
            })(&[a, f.clone()])
        }
        "fromfunction_i" => np::fromfunction(
            |g| np::add(np::multiply(&g[0], 10)?, &g[1]),
            &[2, 3],
            Some(DType::Int32),
        ),
        "fromfunction_f" => np::fromfunction(
            |g| np::subtract(&g[0], np::divide(&g[1], 2)?),
            &[3, 2],
            None,
        ),
        "fromiter_np" => np::fromiter((0..5).map(|v| v as f32), None),
        "fromiter_np_count" => np::fromiter([7i32, 8, 9, 10], Some(3)),
        "diag_indices_0" => np::diag_indices(3, 2).map(|v| v[0].clone()),
        "diag_indices_3d" => np::stack(np::diag_indices(2, 3).unwrap(), 0),
        "diag_indices_from" => np::stack(
            np::diag_indices_from(np::ones(&[4, 4], DType::Float32).unwrap()).unwrap(),
            0,
        ),
        "tril_indices_from_rows" | "tril_indices_from_cols" => {
            let (r, c) =
                np::tril_indices_from(np::ones(&[3, 4], DType::Float32).unwrap(), 1).unwrap();
            Ok(if name.ends_with("rows") { r } else { c })
        }
        "triu_indices_from_rows" | "triu_indices_from_cols" => {
            let (r, c) =
                np::triu_indices_from(np::ones(&[4, 3], DType::Float32).unwrap(), -1).unwrap();
            Ok(if name.ends_with("rows") { r } else { c })
        }
        "bitwise_not_i" => np::bitwise_not(i),
        "bitwise_not_u" => np::bitwise_not(u),
        "bitwise_not_bool" => np::bitwise_not(b),
        "bitwise_not_i8" => np::bitwise_not(np::array([-128i8, -1, 0, 127]).unwrap()),
        "bitwise_not_f" => np::bitwise_not(f),
        "isdtype_table" | "issubdtype_table" => {
            use DType::*;
            let dtypes = [
                Bool, Int8, UInt8, Int16, UInt16, Int32, UInt32, Float16, BFloat16, Float32,
            ];
            let table: Vec<bool> = if name == "isdtype_table" {
                use np::Kind as K;
                let kinds = [
                    K::Bool,
                    K::SignedInteger,
                    K::UnsignedInteger,
                    K::Integral,
                    K::RealFloating,
                    K::ComplexFloating,
                    K::Numeric,
                ];
                dtypes
                    .iter()
                    .flat_map(|&d| kinds.iter().map(move |&k| np::isdtype(d, k)))
                    .collect()
            } else {
                use np::DTypeClass as C;
                let classes = [
                    C::Generic,
                    C::Number,
                    C::Integer,
                    C::SignedInteger,
                    C::UnsignedInteger,
                    C::Inexact,
                    C::Floating,
                ];
                dtypes
                    .iter()
                    .flat_map(|&d| classes.iter().map(move |&c| np::issubdtype(d, c)))
                    .collect()
            };
            np::array(table)
        }
        "issubdtype_exact" => np::array(vec![
            np::issubdtype(DType::Int32, DType::Int32),
            np::issubdtype(DType::Int8, DType::Int32),
            np::issubdtype(DType::BFloat16, DType::Float16),
            np::issubdtype(DType::Float32, DType::Float32),
        ]),
        "clamp_special" => lax::clamp(&f0(0.0), &special(), &f0(1.0)),
        "clamp_nan_min" => lax::clamp(&f0(nan), f, &f0(3.0)),
        "clamp_nan_max" => lax::clamp(&f0(0.0), f, &f0(nan)),
        "clamp_inverted" => lax::clamp(&f0(2.0), f, &f0(1.0)),
        "clamp_arrays" => lax::clamp(&af(&[0.0, 3.0, 0.0]), f, &af(&[0.5, 5.0, nan])),
        "clamp_i" => lax::clamp(&np::array(-1i32).unwrap(), i, &np::array(1i32).unwrap()),
        // Rust integer scalars convert as Python's do (weak int32): these bounds are made
        // with their dtype.
        "clamp_u" => lax::clamp(
            &olympus::Array::from_slice(&[1u32], &[]).unwrap(),
            u,
            &olympus::Array::from_slice(&[5u32], &[]).unwrap(),
        ),
        "clamp_i8" => lax::clamp(
            &olympus::Array::from_slice(&[-3i8], &[]).unwrap(),
            &np::array([-100i8, 5, 100]).unwrap(),
            &olympus::Array::from_slice(&[7i8], &[]).unwrap(),
        ),
        "clamp_bool" => lax::clamp(&np::array(true).unwrap(), b, &np::array(true).unwrap()),
        "clamp_f16" => {
            let h0 = |v: f32| np::array(f16::from_f32(v)).unwrap();
            lax::clamp(&h0(1.5), h, &h0(1.75))
        }
        "clamp_shape_error" => lax::clamp(&af(&[0.0, 1.0]), f, &f0(3.0)),
        "clamp_dtype_error" => lax::clamp(&np::array(0i32).unwrap(), f, &f0(3.0)),
        "fmax_grad_x" | "fmax_grad_y" | "fmin_grad_x" | "fmin_grad_y" => {
            // Ties and NaNs: JAX's `where((x > y) | isnan(y), x, y)` picks, and so does the
            // derivative.
            let xs = af(&[1.0, 2.0, nan, 1.0, nan]);
            let ys = if name.starts_with("fmax") {
                af(&[1.0, 1.0, 1.0, nan, nan])
            } else {
                af(&[1.0, 3.0, 1.0, nan, nan])
            };
            let fmax = name.starts_with("fmax");
            let sum = move |(x, y): (olympus::Array, olympus::Array)| {
                let r = if fmax {
                    np::fmax(&x, &y)
                } else {
                    np::fmin(&x, &y)
                };
                np::sum(r?, None, false)
            };
            olympus::grad(sum)((xs, ys)).map(|(gx, gy)| if name.ends_with('x') { gx } else { gy })
        }
        "clamp_grad_min" | "clamp_grad_x" | "clamp_grad_max" => {
            let args = (
                af(&[0.0, 0.0, 0.0, 1.0, 1.0]),
                af(&[-1.0, 0.0, 0.5, 1.0, 2.0]),
                af(&[1.0, 1.0, 1.0, 1.0, 0.5]),
            );
            let sum = |(lo, x, hi): (olympus::Array, olympus::Array, olympus::Array)| {
                np::sum(lax::clamp(&lo, &x, &hi)?, None, false)
            };
            olympus::grad(sum)(args).map(|(lo, x, hi)| match name {
                "clamp_grad_min" => lo,
                "clamp_grad_x" => x,
                _ => hi,
            })
        }
        "unique_axis_size_values" | "unique_axis_size_inverse" | "unique_axis_size_counts" => {
            let o = np::UniqueOptions {
                axis: Some(0),
                return_inverse: true,
                return_counts: true,
                size: Some(5),
                fill_value: Some(7.0),
                ..Default::default()
            };
            np::unique_with(m2(&[1, 2, 0, 5, 1, 2, 0, 1], 4, 2), o).map(|u| match name {
                "unique_axis_size_values" => u.values,
                "unique_axis_size_inverse" => u.inverse.unwrap(),
                _ => u.counts.unwrap(),
            })
        }
        "unique_axis_cut_values" => {
            let o = np::UniqueOptions {
                axis: Some(0),
                size: Some(2),
                ..Default::default()
            };
            np::unique_with(m2(&[1, 2, 0, 5, 1, 2, 0, 1], 4, 2), o).map(|u| u.values)
        }
        _ if jitted => return None,
        name if name.starts_with("unique_axis") => {
            // `jnp.unique(x, axis=...)` without `size`: the number of slices is read back.
            let ua = m2(&[1, 2, 0, 5, 1, 2, 0, 1], 4, 2);
            let u3 = np::reshape(ai(&[1, 2, 3, 4, 1, 2, 0, 0, 3, 4, 0, 0]), &[2, 3, 2]).unwrap();
            let unan =
                np::reshape(af(&[1.0, nan, 1.0, nan, 0.0, 1.0, 0.0, -0.0]), &[4, 2]).unwrap();
            let all = |axis: isize| np::UniqueOptions {
                axis: Some(axis),
                return_index: true,
                return_inverse: true,
                return_counts: true,
                ..Default::default()
            };
            let u = |x: olympus::Array, o: np::UniqueOptions| np::unique_with(x, o);
            match name {
                "unique_axis0_values" => u(ua, all(0)).map(|u| u.values),
                "unique_axis0_index" => u(ua, all(0)).map(|u| u.indices.unwrap()),
                "unique_axis0_inverse" => u(ua, all(0)).map(|u| u.inverse.unwrap()),
                "unique_axis0_counts" => u(ua, all(0)).map(|u| u.counts.unwrap()),
                "unique_axis1_values" => u(ua, all(1)).map(|u| u.values),
                "unique_axis1_inverse" => u(ua, all(1)).map(|u| u.inverse.unwrap()),
                "unique_axis_neg_values" => {
                    u(m2(&[2, 1, 2, 0, 5, 0], 2, 3), all(-1)).map(|u| u.values)
                }
                "unique_axis_3d_values" => u(u3, all(1)).map(|u| u.values),
                "unique_axis_3d_inverse" => u(u3, all(1)).map(|u| u.inverse.unwrap()),
                "unique_axis_nan_values" => u(unan, all(0)).map(|u| u.values),
                "unique_axis_nan_counts" => u(unan, all(0)).map(|u| u.counts.unwrap()),
                "unique_axis_distinct_nan_counts" => {
                    let o = np::UniqueOptions {
                        equal_nan: false,
                        ..all(0)
                    };
                    u(unan, o).map(|u| u.counts.unwrap())
                }
                "unique_axis_signed_zero_counts" => {
                    let x = np::reshape(af(&[-0.0, 1.0, 0.0, 1.0]), &[2, 2]).unwrap();
                    u(x, all(0)).map(|u| u.counts.unwrap())
                }
                "unique_axis_bool_values" => {
                    let x = np::array([[true, false], [false, true], [true, false]]).unwrap();
                    u(x, all(0)).map(|u| u.values)
                }
                "unique_axis_no_columns_counts" => {
                    u(np::zeros(&[3, 0], DType::Float32).unwrap(), all(0))
                        .map(|u| u.counts.unwrap())
                }
                "unique_axis_0d_error" => u(np::array(3i32).unwrap(), all(0)).map(|u| u.values),
                "unique_axis_range_error" => u(ua, all(2)).map(|u| u.values),
                _ => return None,
            }
        }
        "polymul_trim" => np::polymul_with(ai(&[0, 1, 2]), ai(&[0, 1, 1]), true),
        "polymul_trim_zero" => np::polymul_with(ai(&[0, 0]), ai(&[1, 1]), true),
        "polymul_trim_zeros" => np::polymul_with(af(&[0.0, 0.0]), af(&[0.0, 0.0]), true),
        "polymul_trim_short" => np::polymul_with(af(&[0.0]), af(&[3.0]), true),
        "setdiff1d_u8_i8" => np::setdiff1d(
            np::array([1u8, 2, 3, 250]).unwrap(),
            np::array([2i8, -3]).unwrap(),
            false,
            None,
            None,
        ),
        "setdiff1d_i8_u8" => np::setdiff1d(
            np::array([2i8, -3]).unwrap(),
            np::array([1u8, 2, 3, 250]).unwrap(),
            false,
            None,
            None,
        ),
        "setdiff1d_i_f" => np::setdiff1d(ai(&[1, 2, 3]), af(&[2.0]), false, None, None),
        "choose_raise" => np::choose(
            ai(&[0, 1, 1]),
            [ai(&[1, 2, 3]), ai(&[10, 20, 30])],
            IndexMode::Raise,
        ),
        "intersect1d_ind1"
        | "intersect1d_ind2"
        | "intersect1d_ind_size_v"
        | "intersect1d_ind_size1"
        | "intersect1d_ind_size2"
        | "intersect1d_ind_short" => {
            let size = match name {
                "intersect1d_ind1" | "intersect1d_ind2" => None,
                "intersect1d_ind_short" => Some(2),
                _ => Some(5),
            };
            let fill = (name == "intersect1d_ind_short").then_some(-1.0);
            let a = ai(&[5, 1, 3, 3, 7, 1]);
            np::intersect1d_indices(a, ai(&[3, 1, 1, 9, 5]), false, size, fill).map(|(v, i, j)| {
                match name {
                    "intersect1d_ind_size_v" => v,
                    "intersect1d_ind1" | "intersect1d_ind_size1" => i,
                    _ => j,
                }
            })
        }
        "intersect1d_ind_unique" => {
            np::intersect1d_indices(ai(&[1, 2, 3]), ai(&[3, 2, 8]), true, None, None).map(|r| r.2)
        }
        "intersect1d_ind_nan" => {
            np::intersect1d_indices(af(&[1.0, nan, 2.0]), af(&[nan, 2.0]), false, None, None)
                .map(|r| r.1)
        }
        "intersect1d_ind_2d" => {
            np::intersect1d_indices(m2(&[1, 2, 3, 4], 2, 2), ai(&[4, 1]), false, None, None)
                .map(|r| r.1)
        }
        n if n.starts_with("unique_opt_") => {
            let o = np::UniqueOptions {
                return_index: true,
                return_inverse: true,
                return_counts: true,
                equal_nan: !n.starts_with("unique_opt_nan_"),
                ..Default::default()
            };
            np::unique_with(
                np::array([[3.0f32, 1.0], [nan, 3.0], [nan, 0.0]]).unwrap(),
                o,
            )
            .map(|u| {
                if n.ends_with("_values") {
                    u.values
                } else if n.ends_with("_index") {
                    u.indices.unwrap()
                } else if n.ends_with("_inverse") {
                    u.inverse.unwrap()
                } else {
                    u.counts.unwrap()
                }
            })
        }
        "trim_zeros_fb" => np::trim_zeros(ai(&[0, 0, 1, 0, 2, 0]), "fb"),
        "trim_zeros_f" => np::trim_zeros(ai(&[0, 0, 1, 0, 2, 0]), "f"),
        "trim_zeros_all" => np::trim_zeros(ai(&[0, 0]), "fb"),
        "ravel_multi_index_c" => {
            np::ravel_multi_index([ai(&[1, 0, 1]), ai(&[2, 1, 0])], &[2, 3], IndexMode::Raise)
        }
        "unique_i" => np::unique(ai(&[3, 1, 1, 7, 3, -2]), None, None),
        "unique_nan" => np::unique(af(&[2.0, nan, 1.0, nan, 2.0, -0.0, 0.0]), None, None),
        "unique_m" => np::unique(m2(&[1, 0, 0, 1], 2, 2), None, None),
        "unique_bool" => np::unique(b, None, None),
        "unique_values_nan" => np::unique_values(af(&[2.0, nan, 1.0, nan, 2.0]), None, None),
        "unique_counts_v" => {
            np::unique_counts(af(&[2.0, nan, 1.0, nan, 2.0]), None, None).map(|u| u.1)
        }
        "unique_inverse_m" => np::unique_inverse(m2(&[3, 1, 1, 7], 2, 2), None, None).map(|u| u.1),
        "intersect1d_i" => np::intersect1d(ai(&[1, 3, 4, 3]), ai(&[3, 1, 2, 1]), false, None, None),
        "intersect1d_nan" => {
            np::intersect1d(af(&[nan, 1.0, 2.0]), af(&[nan, 2.0]), false, None, None)
        }
        "intersect1d_unique" => np::intersect1d(ai(&[4, 1, 3]), ai(&[3, 4, 2]), true, None, None),
        "union1d_i" => np::union1d(ai(&[4, 3, 4]), ai(&[3, 5]), None, None),
        "setdiff1d_i" => np::setdiff1d(ai(&[5, 3, 1, 3, 8]), ai(&[3, 5]), false, None, None),
        "setdiff1d_nan" => np::setdiff1d(af(&[nan, 1.0, nan]), af(&[1.0]), false, None, None),
        "setxor1d_i" => np::setxor1d(ai(&[1, 3, 4, 3]), ai(&[3, 1, 2, 1]), false, None, None),
        "nonzero_0d" => np::nonzero(3, None, None).map(|mut v| v.remove(0)),
        "nonzero_1d" => np::nonzero(vec![0i32, 3, 0, 4], None, None).map(|mut v| v.remove(0)),
        "argwhere_0d" => np::argwhere(np::asarray(3).unwrap(), None, None),
        "bitwise_count_i" => np::bitwise_count(i),
        "bitwise_count_u" => np::bitwise_count(u),
        "bitwise_count_bool" => np::bitwise_count(b),
        "bitwise_count_i8" => np::bitwise_count(vec![-128i8, -1, 127, 3]),
        "bitwise_count_f" => np::bitwise_count(f),
        "packbits_i" => np::packbits(ai(&[1, 0, 2, 0, 0, 0, 0, -1, 3]), None, np::BitOrder::Big),
        "packbits_m_little" => np::packbits(m, Some(1), np::BitOrder::Little),
        "packbits_bool" => np::packbits(mask, None, np::BitOrder::Big),
        "packbits_f" => np::packbits(f, None, np::BitOrder::Big),
        "unpackbits_u8" => np::unpackbits(vec![177u8, 3], None, None, np::BitOrder::Big),
        "unpackbits_count" => np::unpackbits(
            np::reshape(vec![177u8, 3], &[1, 2]).unwrap(),
            Some(1),
            Some(-3),
            np::BitOrder::Big,
        ),
        "unpackbits_pad" => np::unpackbits(vec![177u8, 3], None, Some(20), np::BitOrder::Little),
        "unpackbits_axis0" => np::unpackbits(
            np::reshape(vec![1u8, 2, 3, 4], &[2, 2]).unwrap(),
            Some(0),
            None,
            np::BitOrder::Big,
        ),
        "unpackbits_i32" => np::unpackbits(i, None, None, np::BitOrder::Big),
        _ => panic!("no case {name}"),
    })
}

/// JAX 0.10.2's rules where NumPy's differ (bool operands, negative weak ints with uint32,
/// wrapped fill values, integer powers, `.at[]` updates, large ddof, integers past the end
/// in basic indexing), eagerly and under `jit`, against `tests/data/jax_rules.txt`
/// (command in `tests/data/gen_jax_rules.py`).
#[test]
fn jax_rules_match() {
    use olympus::{jit, Array};
    let inputs = vec![
        np::array([true, false, true, false]).unwrap(),
        np::array([true, true, false, false]).unwrap(),
        np::array([0u32, 1, 5, u32::MAX]).unwrap(),
        np::array([1i32, 2, -3, 0]).unwrap(),
        np::array([10i32, -10, 0, 16777217]).unwrap(),
        np::array([1.0f32, 2.0, 4.0]).unwrap(),
        np::array([f16::from_f32(1.0), f16::from_f32(2.0)]).unwrap(),
        np::array([true, false, true, false]).unwrap(),
        np::arange(5).unwrap(),
        np::reshape(np::arange(6).unwrap(), &[2, 3]).unwrap(),
    ];
    let table = include_str!("../data/jax_rules.txt");
    let (mut checked, mut failures) = (0, Vec::new());
    for line in table.lines().filter(|l| !l.starts_with('#')) {
        let t: Vec<&str> = line.split_whitespace().collect();
        let name = t[0];
        for jitted in [false, true] {
            let got = if jitted {
                if jax_rule(name, &inputs, true).is_none() {
                    continue;
                }
                let n = name.to_string();
                jit(move |a: Vec<Array>| jax_rule(&n, &a, true).unwrap()).call(inputs.clone())
            } else {
                jax_rule(name, &inputs, false).unwrap()
            };
            let what = format!("{line} (jit: {jitted})");
            if t[1] == "error" {
                if got.is_ok() {
                    failures.push(format!("{what}: JAX raises, Olympus gave {got:?}"));
                }
                continue;
            }
            let got = match got {
                Ok(g) => g,
                Err(e) => {
                    failures.push(format!("{what}: {e}"));
                    continue;
                }
            };
            let shape: Vec<usize> = match t[3] {
                "scalar" => vec![],
                s => s.split('x').map(|d| d.parse().unwrap()).collect(),
            };
            let weak = t[2] == "1";
            if got.dtype().name() != t[1] || got.weak_type() != weak || got.shape() != shape {
                let (d, w, s) = (got.dtype(), got.weak_type(), got.shape());
                failures.push(format!("{what}: got {d} (weak: {w}) {s:?}"));
                continue;
            }
            let want: Vec<f64> = match t[4] {
                "-" => vec![],
                v => v
                    .split(',')
                    .map(|v| match v {
                        "true" => 1.0,
                        "false" => 0.0,
                        v => v.parse().unwrap(),
                    })
                    .collect(),
            };
            let g = got.to_f64_vec().unwrap();
            // Float results may differ from XLA's by its `x * (1/n)` for `x / n` (IEEE here).
            let d = got.dtype();
            let near = |a: f64, b: f64| {
                a == b || (a.is_nan() && b.is_nan()) || (d.is_floating() && ulps(a, b, d) <= 2.0)
            };
            let same = g.len() == want.len() && g.iter().zip(&want).all(|(&a, &b)| near(a, b));
            if !same {
                failures.push(format!("{what}: got {g:?}"));
            }
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(checked, 667);
}
