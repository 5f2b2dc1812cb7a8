//! The 8- and 16-bit dtypes (int8, uint8, int16, uint16, bfloat16): JAX's results for
//! arithmetic that wraps or rounds, conversions, reductions, scans, sorts, matmul,
//! scatters and random bits; host round trips at every length around the packing; and
//! the image use case (uint8 pixels through float math and back).

use crate::common::*;
use half::bf16;
use olympus::{numpy as np, random, s, Array, DType};

/// The inputs of `tests/data/gen_narrow.py`.
fn inputs(d: DType) -> (Vec<f64>, Vec<f64>) {
    let v: Vec<f64> = match d {
        DType::Int8 => vec![
            -128., -127., -100., -7., -1., 0., 1., 2., 3., 7., 64., 100., 126., 127.,
        ],
        DType::UInt8 => vec![
            0., 1., 2., 3., 7., 64., 100., 127., 128., 129., 200., 250., 254., 255.,
        ],
        DType::Int16 => vec![
            -32768., -32767., -1000., -7., -1., 0., 1., 2., 3., 7., 300., 1000., 32766., 32767.,
        ],
        DType::UInt16 => vec![
            0., 1., 2., 3., 7., 300., 1000., 32767., 32768., 40000., 60000., 65000., 65534., 65535.,
        ],
        _ => {
            let a = vec![
                0.0,
                -0.0,
                1.0,
                -1.5,
                3.140625,
                1e-3,
                255.0,
                65504.0,
                3.0e38,
                -3.0e38,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                1e-30,
            ];
            let b = vec![
                1.0, 3.0, 0.1, 7.0, -2.5, 1e-3, 256.0, 2.0, 2.0, 0.5, 1.0, 2.0, 1.0, 3.0,
            ];
            return (a, b);
        }
    };
    let rev = v.iter().rev().copied().collect();
    (v, rev)
}

/// One case of `tests/data/narrow.txt` on the inputs of dtype `d`.
fn case(op: &str, d: DType) -> olympus::Result<Array> {
    let (va, vb) = inputs(d);
    let a = make(&va, &[14], d);
    let b = make(&vb, &[14], d);
    let shifts = [0., 1., 2., 3., 7., 8., 9., 15., 16., 17., 31., 1., 5., 6.];
    let nz = np::r#where(np::equal(&b, 0)?, np::asarray(3)?.astype(d)?, &b)?;
    Ok(match op {
        "add" => np::add(&a, &b)?,
        "subtract" => np::subtract(&a, &b)?,
        "multiply" => np::multiply(&a, &b)?,
        "floor_divide" => np::floor_divide(&a, &nz)?,
        "remainder" => np::remainder(&a, &nz)?,
        "negative" => np::negative(&a)?,
        "abs" => np::abs(&a)?,
        "invert" => np::invert(&a)?,
        "left_shift" => np::left_shift(&a, make(&shifts, &[14], d))?,
        "right_shift" => np::right_shift(&a, make(&shifts, &[14], d))?,
        "maximum" => np::maximum(&a, &b)?,
        "power" => np::power(&a, np::full(&[14], 2, Some(d))?)?,
        "add_weak" if d.is_integer() => np::add(&a, 1000)?,
        "add_weak" => np::add(&a, 0.1)?,
        "mul_weak" => np::multiply(&a, 3)?,
        "true_divide" if d.is_integer() => np::divide(&a, &nz)?,
        "true_divide" => np::divide(&a, &b)?,
        "sqrt" => np::sqrt(np::abs(&a)?)?,
        "exp" => np::exp(&b)?,
        "sin" => np::sin(&b)?,
        "log" => np::log(np::abs(&b)?)?,
        "tanh" => np::tanh(&b)?,
        "sum" if d.is_integer() => np::sum(&a, None, false)?,
        "sum" => np::sum(&b, None, false)?,
        "prod" => np::prod(a.slice(s![1..6])?, None, false)?,
        "max" if d.is_integer() => np::max(&a, None, false)?,
        "max" => np::max(&b, None, false)?,
        "mean" if d.is_integer() => np::mean(&a, None, false)?,
        "mean" => np::mean(&b, None, false)?,
        "cumsum" if d.is_integer() => np::cumsum(&a, None)?,
        "cumsum" => np::cumsum(&b, None)?,
        "sort" if d.is_integer() => np::sort(np::multiply(&b, &a)?, None)?,
        "sort" => np::sort(&a, None)?,
        "argsort" => np::argsort(np::multiply(&b, &a)?, None)?,
        "matmul" if d.is_integer() => np::matmul(
            np::reshape(a.slice(s![..12])?, &[3, 4])?,
            np::reshape(b.slice(s![..12])?, &[4, 3])?,
        )?,
        "matmul" => {
            let m = b.slice(s![..12])?;
            np::matmul(np::reshape(&m, &[3, 4])?, np::reshape(&m, &[4, 3])?)?
        }
        "scatter_add" if d.is_integer() => a.at(vec![0, 1, 1, 13, 13, 13]).add(make(
            &[100., 100., 100., 50., 50., 50.],
            &[6],
            d,
        ))?,
        "scatter_add" => b.at(vec![0, 0, 0, 0]).add(make(&[0.1; 4], &[4], d))?,
        o => match o.strip_prefix("astype_") {
            Some(to) => a.astype(DType::from_name(to).unwrap())?,
            None => panic!("no case {op}"),
        },
    })
}

/// `tests/data/narrow.txt` was produced by JAX (command in `tests/data/gen_narrow.py`).
#[test]
fn narrow_dtypes_match_jax() {
    let table = include_str!("../data/narrow.txt");
    let mut rows = 0;
    for line in table.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let (name, want_dtype) = (f[0], DType::from_name(f[1]).unwrap());
        let want: Vec<f64> = f[2..].iter().map(|s| s.parse().unwrap()).collect();
        let got = if name == "round_float32_bfloat16" {
            let x = [
                1.0,
                3.0,
                1.0 / 3.0,
                1.00390625,
                1.01171875,
                3.0e38,
                3.3961e38,
                -1e-39,
            ];
            np::asarray(x.map(|v: f64| v as f32).to_vec())
                .unwrap()
                .astype(DType::BFloat16)
                .unwrap()
        } else if name == "random_uniform_bfloat16" {
            let k = random::key(0).unwrap();
            random::uniform(&k, &[8], 0.0, 1.0, DType::BFloat16).unwrap()
        } else if name == "random_normal_bfloat16" {
            random::normal(&random::key(1).unwrap(), &[8], DType::BFloat16).unwrap()
        } else if name == "random_bounded_bfloat16" {
            let k = random::key(2).unwrap();
            random::uniform(&k, &[8], 2.0, 5.0, DType::BFloat16).unwrap()
        } else {
            let (op, d) = name.rsplit_once('_').unwrap();
            let d = DType::from_name(d).unwrap();
            case(op, d).unwrap_or_else(|e| panic!("{name}: {e}"))
        };
        assert_eq!(got.dtype(), want_dtype, "{name}");
        let v = got.to_f64_vec().unwrap();
        assert_eq!(v.len(), want.len(), "{name}");
        // Exact, except transcendentals (JAX's CPU functions and ours may differ by one
        // bfloat16 rounding of a value within an ulp of float32).
        let tol = if ["exp", "sin", "log", "tanh"]
            .iter()
            .any(|o| name.starts_with(o))
        {
            2f64.powi(-7)
        } else if name.starts_with("mean") {
            // XLA on CPU divides by the count as a multiplication by its reciprocal.
            2f64.powi(-23)
        } else {
            0.0
        };
        for (i, (g, w)) in v.iter().zip(&want).enumerate() {
            // XLA on CPU flushes float32 subnormal results to zero; Olympus keeps them.
            let flushed = *w == 0.0 && g.abs() < f64::from(f32::MIN_POSITIVE);
            let ok = g == w && g.is_sign_negative() == w.is_sign_negative()
                || flushed
                || g.is_nan() && w.is_nan()
                || (g - w).abs() <= tol * w.abs();
            assert!(ok, "{name}[{i}]: got {g}, JAX {w}");
        }
        rows += 1;
    }
    assert_eq!(rows, 4 * 29 + 21 + 4);
}

/// Host data of every narrow dtype comes back as it went in at every length around the
/// packing (a word holds four 8-bit or two 16-bit values), through contiguous copies,
/// odd offsets and strided views, and elementwise kernels write whole words only.
#[test]
fn narrow_round_trips_at_every_length_and_offset() {
    let mut r = rng();
    for d in [
        DType::Int8,
        DType::UInt8,
        DType::Int16,
        DType::UInt16,
        DType::BFloat16,
    ] {
        for n in (0..=40).chain([255, 256, 257, 1021, 4099]) {
            let v = random_values(&mut r, d, n);
            let a = make(&v, &[n], d);
            assert_eq!(a.to_f64_vec().unwrap(), v, "{d} round trip of {n}");
            // A kernel's copy (vector loads, packed stores).
            let c = np::add(&a, 0).unwrap();
            assert_eq!(c.dtype(), d);
            assert_eq!(c.to_f64_vec().unwrap(), v, "{d} copy of {n}");
            if n > 3 {
                // Views at every offset into a word, and a stride.
                for off in 1..4 {
                    let s = a.slice(s![off as isize..]).unwrap();
                    let got = np::add(&s, 0).unwrap().to_f64_vec().unwrap();
                    assert_eq!(got, v[off..], "{d} offset {off} of {n}");
                }
                let every3: Vec<f64> = v.iter().step_by(3).copied().collect();
                let s = a.slice(s![..;3]).unwrap();
                assert_eq!(s.to_f64_vec().unwrap(), every3, "{d} stride 3 of {n}");
            }
        }
    }
    // Host types convert to their dtype.
    assert_eq!(np::asarray(vec![1u8, 255]).unwrap().dtype(), DType::UInt8);
    assert_eq!(np::asarray(vec![-1i8]).unwrap().dtype(), DType::Int8);
    assert_eq!(np::asarray(vec![1i16]).unwrap().dtype(), DType::Int16);
    assert_eq!(np::asarray(vec![1u16]).unwrap().dtype(), DType::UInt16);
    let h = np::asarray(vec![bf16::from_f32(1.5)]).unwrap();
    assert_eq!(h.dtype(), DType::BFloat16);
    assert_eq!(h.to_vec::<bf16>().unwrap(), vec![bf16::from_f32(1.5)]);
    assert_eq!(
        format!("{}", np::asarray(vec![1u8, 200]).unwrap()),
        "Array([  1, 200], dtype=uint8)"
    );
}

/// The use case of the 8-bit dtypes: an RGBA image loaded as uint8 `(H, W, 4)`, its
/// colour channels gamma-corrected in float32 and converted back (rounded, clipped), the
/// alpha channel kept; checked against the same math on the host.
#[test]
fn uint8_image_through_float_math_and_back() {
    let (h, w) = (37, 53);
    let mut r = rng();
    let px: Vec<u8> = (0..h * w * 4).map(|_| rand::Rng::random(&mut r)).collect();
    let img = Array::from_slice(&px, &[h, w, 4]).unwrap();
    assert_eq!(img.dtype(), DType::UInt8);
    let f = np::divide(img.astype(DType::Float32).unwrap(), 255.0).unwrap();
    let g = np::power(&f, 1.0 / 2.2).unwrap();
    let out = np::clip(
        np::round(np::multiply(&g, 255.0).unwrap(), 0).unwrap(),
        0.0,
        255.0,
    )
    .unwrap()
    .astype(DType::UInt8)
    .unwrap();
    // Alpha untouched: channel 3 from the input.
    let alpha = np::equal(np::arange(4).unwrap(), 3).unwrap();
    let out = np::r#where(&alpha, &img, &out).unwrap();
    assert_eq!(out.dtype(), DType::UInt8);
    let got = out.to_vec::<u8>().unwrap();
    for (i, (&p, &g)) in px.iter().zip(&got).enumerate() {
        let want = if i % 4 == 3 {
            p
        } else {
            let v = (f32::from(p) / 255.0).powf(1.0 / 2.2) * 255.0;
            v.round_ties_even().clamp(0.0, 255.0) as u8
        };
        // float32 `pow` may differ by an ulp, which moves a value sitting on .5.
        assert!(g.abs_diff(want) <= 1, "pixel {i}: {p} -> {g}, host {want}");
    }
    // Sums of uint8 count in uint32 (JAX's `promote_integers`).
    let s = np::sum(&img, None, false).unwrap();
    assert_eq!(s.dtype(), DType::UInt32);
    assert_eq!(
        s.item::<u32>().unwrap(),
        px.iter().map(|&p| u32::from(p)).sum::<u32>()
    );
}

/// bfloat16 arithmetic at the bottom of the range (subnormal operands and results) gives
/// the correctly rounded answer: the float32 result of the values, rounded once. XLA:CPU
/// flushes subnormals to zero, so JAX 0.10.2 gives NaN for `1e-38 / 1e-38` in bfloat16
/// (and zeros for sums there); Olympus keeps IEEE's answer, as NumPy's float32 gives it,
/// except on adapters that flush subnormals themselves (NVIDIA through Vulkan), whose
/// answer is then XLA's.
#[test]
fn bfloat16_arithmetic_keeps_subnormals() {
    let values: Vec<f32> = [
        1.001e-38f32,
        -5e-39,
        9.2e-41,
        -1e-40,
        3e-39,
        1.2e-38,
        -3e-38,
        1.0,
        -2.5,
        0.0,
    ]
    .iter()
    .map(|&v| bf16::from_f32(v).to_f32())
    .collect();
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for &x in &values {
        for &y in &values {
            xs.push(x);
            ys.push(y);
        }
    }
    let arr = |v: &[f32]| np::array(v.iter().map(|&x| bf16::from_f32(x)).collect::<Vec<_>>());
    let (x, y) = (arr(&xs).unwrap(), arr(&ys).unwrap());
    type Host = fn(f32, f32) -> f32;
    let ops: [(&str, Host); 6] = [
        ("add", |a, b| a + b),
        ("subtract", |a, b| a - b),
        ("multiply", |a, b| a * b),
        ("divide", |a, b| a / b),
        ("maximum", |a, b| extreme(a, b, true)),
        ("minimum", |a, b| extreme(a, b, false)),
    ];
    let flush = |v: f32| {
        if v.is_subnormal() {
            0.0f32.copysign(v)
        } else {
            v
        }
    };
    let rounded = |v: f32| bf16::from_f32(v).to_f32();
    for (name, host) in ops {
        let run = |x: &Array, y: &Array| match name {
            "add" => np::add(x, y),
            "subtract" => np::subtract(x, y),
            "multiply" => np::multiply(x, y),
            "divide" => np::divide(x, y),
            "maximum" => np::maximum(x, y),
            _ => np::minimum(x, y),
        };
        let eager = run(&x, &y).unwrap();
        let jitted = olympus::jit(move |(x, y): (Array, Array)| run(&x, &y))
            .call((x.clone(), y.clone()))
            .unwrap();
        for (how, got) in [("eager", eager), ("jit", jitted)] {
            assert_eq!(got.dtype(), DType::BFloat16, "{name}");
            let got = got.astype(DType::Float32).unwrap().to_vec::<f32>().unwrap();
            for (k, &g) in got.iter().enumerate() {
                let (a, b) = (xs[k], ys[k]);
                let ieee = rounded(host(a, b));
                let flushed = flush(rounded(host(flush(a), flush(b))));
                let same = |w: f32| g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan());
                // Max and min of equal zeros may keep either sign where values flush.
                let zeros = g == 0.0 && flushed == 0.0 && name.ends_with("imum");
                assert!(
                    same(ieee) || same(flushed) || zeros,
                    "{name} ({how}) of {a:e} and {b:e}: got {g:e}, IEEE gives {ieee:e}"
                );
            }
        }
    }
}

/// XLA's max (or min) of two floats: NaN from either, -0.0 below 0.0.
fn extreme(a: f32, b: f32, max: bool) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else if a == 0.0 && b == 0.0 {
        let positive = if max {
            a.is_sign_positive() || b.is_sign_positive()
        } else {
            a.is_sign_positive() && b.is_sign_positive()
        };
        if positive {
            0.0
        } else {
            -0.0
        }
    } else if max {
        a.max(b)
    } else {
        a.min(b)
    }
}

/// 8- and 16-bit integer indices index by their values in every gather and scatter, as
/// JAX's do (negative int8 from the end, uint8 past the axis out of range); values from
/// JAX 0.10.2.
#[test]
fn narrow_integer_indices_index_by_value() {
    use np::IndexMode::{Clip, Wrap};
    let x = np::array([10.0f32, 20.0, 30.0, 40.0]).unwrap();
    let idx = |v: &[i32], d: DType| np::array(v.to_vec()).unwrap().astype(d).unwrap();
    let i8s = idx(&[0, -1, 3, -5, 100], DType::Int8);
    let u8s = idx(&[0, 3, 200, 1, 4], DType::UInt8);
    let got = |a: olympus::Result<Array>| a.unwrap().to_vec::<f32>().unwrap();
    let n = f32::NAN;
    let cases: Vec<(&str, Vec<f32>, Vec<f32>)> = vec![
        (
            "take int8",
            got(np::take(&x, &i8s, None)),
            vec![10., 40., 40., n, n],
        ),
        (
            "take uint8",
            got(np::take(&x, &u8s, None)),
            vec![10., 40., n, 20., n],
        ),
        (
            "take int8 clip",
            got(np::take_with(&x, &i8s, None, Clip, None)),
            vec![10., 10., 40., 10., 40.],
        ),
        (
            "take uint8 wrap",
            got(np::take_with(&x, &u8s, None, Wrap, None)),
            vec![10., 40., 10., 20., 10.],
        ),
        (
            "at int8 get",
            got(x.at(&i8s).get()),
            vec![10., 40., 40., 10., 40.],
        ),
        (
            "at uint8 get fill",
            got(x.at(&u8s).mode(np::IndexMode::Fill).fill_value(-1.0).get()),
            vec![10., 40., -1., 20., -1.],
        ),
        (
            "at int8 add",
            got(x.at(&i8s).add(1.0)),
            vec![11., 20., 30., 42.],
        ),
        (
            "at uint8 set",
            got(x.at(&u8s).set(0.0)),
            vec![0., 0., 30., 0.],
        ),
        (
            "take_along_axis uint8",
            got(np::take_along_axis(&x, idx(&[255, 1], DType::UInt8), 0)),
            vec![n, 20.],
        ),
        (
            "take_along_axis int8",
            got(np::take_along_axis(&x, idx(&[-128, -2], DType::Int8), 0)),
            vec![n, 30.],
        ),
        (
            "take uint16",
            got(np::take(&x, idx(&[65535, 2], DType::UInt16), None)),
            vec![n, 30.],
        ),
        (
            "take int16 clip",
            got(np::take_with(
                &x,
                idx(&[-32768, -4], DType::Int16),
                None,
                Clip,
                None,
            )),
            vec![10., 10.],
        ),
    ];
    for (name, got, want) in cases {
        let same = got.len() == want.len()
            && got
                .iter()
                .zip(&want)
                .all(|(g, w)| g == w || (g.is_nan() && w.is_nan()));
        assert!(same, "{name}: got {got:?}, JAX {want:?}");
    }
    // Raise mode reads the values: an int8 index past the axis is an error naming take.
    let e = np::take_with(
        &x,
        idx(&[1, 9], DType::Int8),
        None,
        np::IndexMode::Raise,
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("take_with"), "{e}");
    // Float indices stay an error.
    let e = np::take(&x, np::array([1.0f32]).unwrap(), None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("indices must be integers"), "{e}");
}

/// `ravel_multi_index` gives its indices' promoted dtype (or `dtype=`), as JAX 0.10.2
/// does, and refuses dims whose last flat position that dtype cannot hold.
#[test]
fn ravel_multi_index_keeps_narrow_index_dtypes() {
    use np::{IndexMode, Order};
    let idx = |v: &[i32], d: DType| np::array(v.to_vec()).unwrap().astype(d).unwrap();
    let (i8a, i8b) = (idx(&[1, 2], DType::Int8), idx(&[3, 0], DType::Int8));
    let flat = |r: olympus::Result<Array>| {
        let r = r.unwrap();
        (
            r.dtype(),
            r.astype(DType::Int32).unwrap().to_vec::<i32>().unwrap(),
        )
    };
    let mixed = [i8a.clone(), idx(&[3, 0], DType::UInt8)];
    assert_eq!(
        flat(np::ravel_multi_index(mixed, &[3, 4], IndexMode::Clip)),
        (DType::Int16, vec![7, 8])
    );
    // 32 * 4 - 1 = 127 still fits int8.
    let pair = || [i8a.clone(), i8b.clone()];
    assert_eq!(
        flat(np::ravel_multi_index(pair(), &[32, 4], IndexMode::Clip)),
        (DType::Int8, vec![7, 8])
    );
    let e = np::ravel_multi_index(pair(), &[300, 4], IndexMode::Clip).unwrap_err();
    assert!(e.to_string().contains("int8"), "{e}");
    assert_eq!(
        flat(np::ravel_multi_index_with(
            pair(),
            &[300, 4],
            IndexMode::Clip,
            Order::C,
            Some(DType::Int16)
        )),
        (DType::Int16, vec![7, 8])
    );
    // A Rust integer is weak, as JAX's Python int: it takes the array's dtype.
    let with_scalar = [
        olympus::numpy::overrides::Arg::new(i8a.clone()),
        olympus::numpy::overrides::Arg::new(2),
    ];
    assert_eq!(
        flat(np::ravel_multi_index(with_scalar, &[3, 4], IndexMode::Clip)),
        (DType::Int8, vec![6, 10])
    );
    let u16s = [idx(&[1, 2], DType::UInt16), idx(&[3, 0], DType::UInt16)];
    assert_eq!(
        flat(np::ravel_multi_index_with(
            u16s,
            &[3, 4],
            IndexMode::Wrap,
            Order::F,
            None
        )),
        (DType::UInt16, vec![10, 2])
    );
}

/// `preferred_element_type=` refuses what JAX refuses: an integer type narrower than the
/// operands', and bool.
#[test]
fn preferred_element_type_refuses_narrower_integers() {
    let a = np::array([[1u32, 2]]).unwrap();
    let b = np::array([[3u32], [4]]).unwrap();
    for d in [DType::Int8, DType::UInt16, DType::Bool] {
        let o = np::DotOptions::new().preferred_element_type(d);
        let e = np::matmul_with(&a, &b, o).unwrap_err().to_string();
        assert!(
            e.contains("matmul_with") && e.contains("preferred_element_type"),
            "{e}"
        );
    }
    let o = np::DotOptions::new().preferred_element_type(DType::Int32);
    assert_eq!(
        np::matmul_with(&a, &b, o).unwrap().to_vec::<i32>().unwrap(),
        vec![11]
    );
}
