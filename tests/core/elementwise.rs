//! add, multiply and exp against f64 CPU references on random inputs: every dtype, 0-d,
//! empty, broadcast and non-contiguous operands, both float16 paths.

use crate::common::*;
use half::f16;
use olympus::{lax, numpy as np, DType, Device, DeviceOptions, F16Mode};

const SHAPE_PAIRS: &[(&[usize], &[usize])] = &[
    (&[], &[]),
    (&[0], &[0]),
    (&[7], &[7]),
    (&[1003], &[1003]),
    (&[3, 1], &[1, 4]),
    (&[2, 1, 4], &[3, 1]),
    (&[], &[2, 5]),
    (&[6, 0], &[1]),
    (&[4, 5, 6], &[4, 5, 6]),
];

fn check_binary(name: &str, dev_f16: Option<&Device>) {
    let mut r = rng();
    let mut run = || {
        for d in every_dtype() {
            for &(sa, sb) in SHAPE_PAIRS {
                let na: usize = sa.iter().product();
                let nb: usize = sb.iter().product();
                let va = random_values(&mut r, d, na);
                let vb = random_values(&mut r, d, nb);
                let a = make(&va, sa, d);
                let b = make(&vb, sb, d);
                let out_shape = bshape(sa, sb);
                let n: usize = out_shape.iter().product();
                let want: Vec<f64> = (0..n)
                    .map(|i| {
                        let x = va[bcast_index(&out_shape, sa, i)];
                        let y = vb[bcast_index(&out_shape, sb, i)];
                        if name == "add" {
                            add_ref(x, y, d)
                        } else {
                            mul_ref(x, y, d)
                        }
                    })
                    .collect();
                let got = if name == "add" {
                    np::add(&a, &b)
                } else {
                    np::multiply(&a, &b)
                }
                .unwrap();
                assert_eq!(got.shape(), out_shape.as_slice());
                assert_close(&format!("{name} {d} {sa:?}x{sb:?}"), &got, &want, d, EXACT);
            }
        }
    };
    match dev_f16 {
        Some(dev) => olympus::with_device(dev, run),
        None => run(),
    }
}

#[test]
fn add_all_dtypes_and_shapes() {
    check_binary("add", None);
}

#[test]
fn multiply_all_dtypes_and_shapes() {
    check_binary("multiply", None);
}

#[test]
fn emulated_f16_matches_native_bits() {
    let opts = DeviceOptions {
        f16: F16Mode::Emulated,
        ..DeviceOptions::default()
    };
    let emu = Device::new(opts).unwrap();
    assert!(!emu.info().f16_native);
    check_binary("add", Some(&emu));
    check_binary("multiply", Some(&emu));
    // Edge values through both paths: subnormals, overflow to inf, NaN, signed zero.
    let edge: Vec<f32> = vec![
        0.0,
        -0.0,
        1e-8,
        3e-8,
        6e-8,
        6.1e-5,
        65504.0,
        65519.0,
        65520.0,
        1e6,
        -1e6,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.1,
        1.0 / 3.0,
        2.0009766,
        2.0014648,
    ];
    let want: Vec<u16> = edge.iter().map(|&v| f16::from_f32(v).to_bits()).collect();
    for dev in [Device::default_device().unwrap(), emu] {
        let got = olympus::with_device(&dev, || {
            np::asarray(edge.clone())
                .unwrap()
                .astype(DType::Float16)
                .unwrap()
                .to_vec::<f16>()
                .unwrap()
        });
        let bits: Vec<u16> = got.iter().map(|h| h.to_bits()).collect();
        assert_eq!(bits, want, "f32 -> f16 rounding on {:?}", dev);
    }
}

#[test]
fn exp_all_dtypes() {
    let mut r = rng();
    for d in every_dtype() {
        for shape in [&[][..], &[0], &[9], &[33, 31]] {
            let n: usize = shape.iter().product();
            let v: Vec<f64> = random_values(&mut r, d, n)
                .into_iter()
                .map(|x| {
                    if d.is_integer() {
                        (x % 20.0).trunc()
                    } else {
                        x
                    }
                })
                .collect();
            let a = make(&v, shape, d);
            let out = if matches!(d, DType::Float16 | DType::BFloat16) {
                d
            } else {
                DType::Float32
            };
            let want: Vec<f64> = v.iter().map(|&x| round_to(x.exp(), out)).collect();
            let got = np::exp(&a).unwrap();
            // float32 exp: within 2 ulp of the correctly rounded value (lavapipe measured
            // 1); float16: computed in float32 and rounded once, so within 1 ulp.
            assert_close(
                &format!("exp {d} {shape:?}"),
                &got,
                &want,
                out,
                if out.bits() == 16 { 1.0 } else { 2.0 },
            );
        }
    }
    // NaN and infinities.
    let got =
        np::exp(np::asarray(vec![f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 100.0]).unwrap())
            .unwrap();
    assert_close(
        "exp specials",
        &got,
        &[f64::NAN, f64::INFINITY, 0.0, f64::INFINITY],
        DType::Float32,
        0.0,
    );
}

#[test]
fn non_contiguous_operands_read_in_place() {
    let mut r = rng();
    for d in every_dtype() {
        let va = random_values(&mut r, d, 6 * 5);
        let vb = random_values(&mut r, d, 5 * 6);
        let a = make(&va, &[6, 5], d);
        let b = make(&vb, &[5, 6], d);
        let at = lax::transpose(&a, &[1, 0]).unwrap(); // (5, 6), strides (1, 5)
        let got = np::add(&at, &b).unwrap();
        let want: Vec<f64> = (0..30)
            .map(|i| {
                let (row, col) = (i / 6, i % 6);
                add_ref(va[col * 5 + row], vb[i], d)
            })
            .collect();
        assert_close(&format!("transposed add {d}"), &got, &want, d, EXACT);
        // A transposed array reads back in logical order.
        let back = at.to_f64_vec().unwrap();
        let want_t: Vec<f64> = (0..30).map(|i| va[(i % 6) * 5 + i / 6]).collect();
        assert_eq!(back, want_t);
    }
}

#[test]
fn weak_scalars_and_promotion_in_ops() {
    let x16 = np::asarray(vec![f16::from_f32(1.5), f16::from_f32(2.0)]).unwrap();
    assert_eq!(np::add(&x16, 2.0).unwrap().dtype(), DType::Float16);
    let xi = np::array([1i32, 2]).unwrap();
    let y = np::add(&xi, 1.5).unwrap();
    assert_eq!((y.dtype(), y.weak_type()), (DType::Float32, true));
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![2.5, 3.5]);
    let xu = np::array([1u32, 2]).unwrap();
    assert_eq!(np::add(&xu, &xi).unwrap().dtype(), DType::Int32);
    let xb = np::array([true, false]).unwrap();
    assert_eq!(
        np::add(&xb, &xu).unwrap().to_vec::<u32>().unwrap(),
        vec![2, 2]
    );
    // A weak int fits the uint32 range when it meets uint32, and overflows int32.
    assert_eq!(
        np::add(&xu, 3_000_000_000u64)
            .unwrap()
            .to_vec::<u32>()
            .unwrap(),
        vec![3_000_000_001, 3_000_000_002]
    );
    let e = np::add(&xi, 3_000_000_000u64).unwrap_err();
    assert!(e.to_string().contains("out of range for int32"), "{e}");
    // int32 overflow wraps.
    let big = np::array([i32::MAX, i32::MIN]).unwrap();
    assert_eq!(
        np::add(&big, 1).unwrap().to_vec::<i32>().unwrap(),
        vec![i32::MIN, i32::MIN + 1]
    );
    // Two weak scalars stay weak.
    let w = np::add(1, 2.5).unwrap();
    assert!(w.weak_type() && w.ndim() == 0);
    assert_eq!(w.item::<f32>().unwrap(), 3.5);
}

#[test]
fn shape_errors_name_function_and_shapes() {
    let a = np::zeros(&[2, 3], DType::Float32).unwrap();
    let b = np::zeros(&[4], DType::Float32).unwrap();
    let e = np::add(&a, &b).unwrap_err().to_string();
    assert!(
        e.contains("add") && e.contains("(2, 3)") && e.contains("(4,)"),
        "{e}"
    );
    let e = np::multiply(&a, [1.0f32, 2.0]).unwrap_err().to_string();
    assert!(e.contains("multiply") && e.contains("(2,)"), "{e}");
    // lax does not broadcast or promote.
    let e = lax::add(&a, &np::zeros(&[3], DType::Float32).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("add") && e.contains("equal shapes"), "{e}");
    let e = lax::add(&a, &np::zeros(&[2, 3], DType::Int32).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("float32") && e.contains("int32"), "{e}");
    let e = lax::exp(&np::zeros(&[2], DType::Int32).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("exp") && e.contains("int32"), "{e}");
}

#[test]
fn exp_accuracy_over_the_whole_range() {
    // 200k points from the underflow to the overflow threshold, against f64.
    let n = 200_000;
    let xs: Vec<f32> = (0..n)
        .map(|i| -87.0 + 175.7 * (i as f32 / n as f32))
        .collect();
    let got = np::exp(np::asarray(xs.clone()).unwrap())
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    let mut worst = 0.0f64;
    for (x, g) in xs.iter().zip(&got) {
        let want = f64::from(*x).exp();
        let u = ulps(
            f64::from(*g),
            round_to(want, DType::Float32),
            DType::Float32,
        );
        worst = worst.max(u);
    }
    eprintln!("exp float32: worst error {worst} ulp over [-87, 88.7]");
    assert!(worst <= 2.0, "exp worst error {worst} ulp");
}

#[test]
fn large_outputs_with_ragged_ends_store_every_element() {
    // From 2^22 elements on, a CPU adapter's elementwise thread computes four `vec4`s
    // (16 elements) written out one after another; below, one. Sizes whose last thread
    // holds one, two, three and four vectors, the last one partial, and one just below.
    // A jitted function with three outputs (float32, bool, float16) fuses into one
    // kernel storing all three; eager `exp` runs the single-output kernel.
    let from = 1usize << 22;
    let f = olympus::jit(|(a, b): (olympus::Array, olympus::Array)| {
        let y = np::add(np::multiply(&a, 2.0)?, &b)?;
        let gt = np::greater(&a, &b)?;
        let h = np::astype(&y, DType::Float16)?;
        Ok((y, gt, h))
    });
    let mut r = rng();
    for n in [from - 1, from + 1, from + 6, from + 11, from + 16 + 15] {
        let va = random_values(&mut r, DType::Float32, n);
        let vb = random_values(&mut r, DType::Float32, n);
        let (a, b) = (
            make(&va, &[n], DType::Float32),
            make(&vb, &[n], DType::Float32),
        );
        let (y, gt, h) = f.call((a.clone(), b.clone())).unwrap();
        let (y, gt, h) = (
            f32s(&y),
            gt.to_vec::<bool>().unwrap(),
            h.to_vec::<f16>().unwrap(),
        );
        let e = f32s(&np::exp(&a).unwrap());
        assert_eq!(
            (y.len(), gt.len(), h.len(), e.len()),
            (n, n, n, n),
            "n = {n}"
        );
        for i in 0..n {
            let (x, z) = (va[i] as f32, vb[i] as f32);
            let want = x * 2.0 + z;
            assert_eq!(y[i].to_bits(), want.to_bits(), "n = {n}: a*2+b at {i}");
            assert_eq!(gt[i], x > z, "n = {n}: a > b at {i}");
            assert_eq!(h[i], f16::from_f32(want), "n = {n}: float16 at {i}");
            let ulps = (f64::from(e[i]) - f64::from(x).exp()).abs()
                / ulp_of(f64::from(x).exp(), DType::Float32);
            assert!(
                ulps <= 2.0,
                "n = {n}: exp at {i}: {} against {}",
                e[i],
                f64::from(x).exp()
            );
        }
    }
}

/// `lax.clamp` as XLA computes it: `min(max(x, lo), hi)`, a NaN anywhere giving NaN, -0.0
/// below 0.0.
fn clamp_ref(lo: f64, x: f64, hi: f64) -> f64 {
    let pick = |a: f64, b: f64, larger: bool| -> f64 {
        if a.is_nan() || b.is_nan() {
            f64::NAN
        } else if a == b {
            // Equal values differ only in the sign of zero.
            if larger == a.is_sign_positive() {
                a
            } else {
                b
            }
        } else if (a > b) == larger {
            a
        } else {
            b
        }
    };
    pick(pick(x, lo, true), hi, false)
}

#[test]
fn clamp_matches_a_host_reference_in_every_dtype_and_layout() {
    let mut r = rng();
    for d in every_dtype() {
        // 0-d, empty, odd, past a workgroup; non-contiguous operands; 0-d bounds too.
        for shape in [&[][..], &[0], &[7], &[1003], &[4, 5]] {
            for transposed in [false, true] {
                let (x, xv) = random_array(&mut r, shape, d, transposed);
                let (lo, lov) = random_array(&mut r, shape, d, transposed);
                let (hi, hiv) = random_array(&mut r, shape, d, false);
                let got = lax::clamp(&lo, &x, &hi).unwrap();
                let want: Vec<f64> = (0..xv.len())
                    .map(|k| clamp_ref(lov[k], xv[k], hiv[k]))
                    .collect();
                assert_close(&format!("clamp {d} {shape:?}"), &got, &want, d, 0.0);
                let (s_lo, s_hi) = (make(&[-1.0], &[], d), make(&[3.0], &[], d));
                let got = lax::clamp(&s_lo, &x, &s_hi).unwrap();
                let (a, b) = (stored(&[-1.0], d)[0], stored(&[3.0], d)[0]);
                let want: Vec<f64> = xv.iter().map(|&v| clamp_ref(a, v, b)).collect();
                assert_close(&format!("clamp 0-d bounds {d}"), &got, &want, d, 0.0);
            }
        }
    }
}

#[test]
fn clamp_keeps_jaxs_signed_zeros_nans_and_errors() {
    // python3 -c "import jax.numpy as jnp; from jax import lax;
    //   print(lax.clamp(-0.0, jnp.array([0.0, -0.0]), 0.0), lax.clamp(0.0, jnp.array([-0.0]), -0.0))"
    // gives [ 0. -0.] [-0.]
    let bits = |a: &olympus::Array| -> Vec<u32> {
        a.to_vec::<f32>()
            .unwrap()
            .iter()
            .map(|v| v.to_bits())
            .collect()
    };
    let z = |v: f32| np::array(v).unwrap();
    let x = np::array([0.0f32, -0.0]).unwrap();
    let got = lax::clamp(&z(-0.0), &x, &z(0.0)).unwrap();
    assert_eq!(bits(&got), vec![0.0f32.to_bits(), (-0.0f32).to_bits()]);
    let got = lax::clamp(&z(0.0), &np::array([-0.0f32]).unwrap(), &z(-0.0)).unwrap();
    assert_eq!(bits(&got), vec![(-0.0f32).to_bits()]);
    // Under jit the clamp fuses with its neighbours and gives the same bits.
    let f = olympus::jit(|x: olympus::Array| {
        let y = np::multiply(&x, 2.0)?;
        lax::clamp(&np::array(-0.0f32)?, &y, &np::array(0.0f32)?)
    });
    let got = f
        .call(np::array([0.0f32, -0.0, f32::NAN, 5.0, -5.0]).unwrap())
        .unwrap();
    let g = got.to_vec::<f32>().unwrap();
    assert_eq!(&bits(&got)[..2], &[0.0f32.to_bits(), (-0.0f32).to_bits()]);
    assert!(g[2].is_nan());
    assert_eq!(&g[3..], &[0.0, -0.0]);
    // Bounds neither 0-d nor of the operand's shape, and mixed dtypes, are errors naming
    // the function.
    let e = lax::clamp(
        &np::array([0.0f32, 1.0]).unwrap(),
        &np::zeros(&[3], DType::Float32).unwrap(),
        &z(1.0),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("clamp") && e.contains("(2,)") && e.contains("(3,)"),
        "{e}"
    );
    let e = lax::clamp(&np::array(0i32).unwrap(), &z(1.0), &z(2.0))
        .unwrap_err()
        .to_string();
    assert!(e.contains("clamp") && e.contains("int32"), "{e}");
}

#[test]
fn clamp_differentiates_and_vectorizes() {
    use olympus::{grad, vmap, Array};
    // A 0-d bound's gradient sums the partials of every element it bounds (JAX 0.10.2's
    // own rule raises here, comparing a 0-d tangent in `select`).
    let xs = np::array([-1.0f32, 0.0, 0.5, 2.0]).unwrap();
    let g = grad(|lo: Array| np::sum(lax::clamp(&lo, &xs, &np::array(1.0f32)?)?, None, false))(
        np::array(0.25f32).unwrap(),
    )
    .unwrap();
    assert_eq!(g.to_vec::<f32>().unwrap(), vec![2.0]);
    // vmap over the operand with unbatched 0-d bounds, and over a bound too.
    let xv = [-3.0f32, -1.8, -0.6, 0.6, 1.8, 3.0];
    let x = np::reshape(np::array(xv).unwrap(), &[2, 3]).unwrap();
    let clamp01 = |x: Array| lax::clamp(&np::array(0.0f32)?, &x, &np::array(1.0f32)?);
    let got = vmap(clamp01, 0, 0)(x.clone()).unwrap();
    let host: Vec<f32> = xv.iter().map(|v| v.clamp(0.0, 1.0)).collect();
    assert_eq!(got.shape(), &[2, 3]);
    assert_eq!(got.to_vec::<f32>().unwrap(), host);
    let per_row = |(lo, x): (Array, Array)| lax::clamp(&lo, &x, &np::array(2.0f32)?);
    let lo = np::array([-1.0f32, 1.0]).unwrap();
    let got = vmap(per_row, (0, 0), 0)((lo, x)).unwrap();
    let host: Vec<f32> = xv
        .iter()
        .enumerate()
        .map(|(k, v)| v.clamp(if k < 3 { -1.0 } else { 1.0 }, 2.0))
        .collect();
    assert_eq!(got.to_vec::<f32>().unwrap(), host);
}

#[test]
fn signed_zeros_order_as_in_xla() {
    // python3 -c "import jax.numpy as jnp, numpy as np; z=jnp.array([0.0,-0.0]); nz=z[::-1]
    //   print(np.signbit(jnp.minimum(z,nz)), np.signbit(jnp.maximum(z,nz)),
    //         np.signbit(jnp.min(nz)), np.signbit(jnp.max(z)), jnp.argmax(nz), jnp.argmin(z),
    //         np.signbit(jnp.array([0.0]).at[0].min(-0.0)), np.signbit(jnp.array([-0.0]).at[0].max(0.0)))"
    // gives [ True  True] [False False] True False 0 0 [ True] [False]
    // (and np.signbit(jnp.fmax(z, nz)), np.signbit(jnp.fmin(z, nz)) give [ True False]
    // twice): XLA's max and min
    // order -0.0 below 0.0 (WGSL's may return either zero).
    use olympus::{jit, Array};
    let neg = |a: &Array| -> Vec<bool> {
        let v = a.astype(DType::Float32).unwrap().to_vec::<f32>().unwrap();
        v.iter().map(|x| x.is_sign_negative()).collect()
    };
    for d in [DType::Float32, DType::Float16, DType::BFloat16] {
        let z = np::array([0.0f32, -0.0]).unwrap().astype(d).unwrap();
        let nz = np::flip(&z, None).unwrap();
        assert_eq!(neg(&np::minimum(&z, &nz).unwrap()), [true, true], "{d}");
        // fmax and fmin are JAX's `where`s: a tie gives the second operand.
        assert_eq!(neg(&np::fmax(&z, &nz).unwrap()), [true, false], "{d}");
        assert_eq!(neg(&np::fmin(&z, &nz).unwrap()), [true, false], "{d}");
        assert_eq!(neg(&np::maximum(&z, &nz).unwrap()), [false, false], "{d}");
        assert_eq!(neg(&np::min(&nz, None, false).unwrap()), [true], "{d}");
        assert_eq!(neg(&np::max(&z, None, false).unwrap()), [false], "{d}");
        assert_eq!(neg(&np::nanmin(&nz, None, false).unwrap()), [true], "{d}");
        assert_eq!(neg(&np::nanmax(&z, None, false).unwrap()), [false], "{d}");
        assert_eq!(
            np::argmax(&nz, None, false).unwrap().item::<i32>().unwrap(),
            0
        );
        assert_eq!(
            np::argmin(&z, None, false).unwrap().item::<i32>().unwrap(),
            0
        );
        let zero = np::array([0.0f32]).unwrap().astype(d).unwrap();
        let m = zero
            .at(0)
            .min(np::array(-0.0f32).unwrap().astype(d).unwrap());
        assert_eq!(neg(&m.unwrap()), [true], "{d}");
        let minus = np::array([-0.0f32]).unwrap().astype(d).unwrap();
        let m = minus
            .at(0)
            .max(np::array(0.0f32).unwrap().astype(d).unwrap());
        assert_eq!(neg(&m.unwrap()), [false], "{d}");
    }
    // Long rows (the vector paths of the reduction kernels), eagerly and fused under jit:
    // one zero of the other sign anywhere decides.
    let mut r = rng();
    for n in [5usize, 64, 1003, 4099] {
        let at = rand::Rng::random_range(&mut r, 0..n);
        let mut v = vec![0.0f32; n];
        v[at] = -0.0;
        let x = np::array(v.clone()).unwrap();
        assert_eq!(neg(&np::min(&x, None, false).unwrap()), [true], "{n} {at}");
        assert_eq!(neg(&np::max(&x, None, false).unwrap()), [false], "{n} {at}");
        let w: Vec<f32> = v.iter().map(|z| -z).collect();
        let y = np::array(w).unwrap();
        let fused = jit(|y: Array| np::max(np::multiply(&y, 1.0f32)?, None, false));
        assert_eq!(neg(&fused.call(y.clone()).unwrap()), [false], "{n} {at}");
        let fused = jit(|y: Array| np::min(np::multiply(&y, 1.0f32)?, None, false));
        assert_eq!(neg(&fused.call(x.clone()).unwrap()), [true], "{n} {at}");
    }
}

/// An operand repeated along leading dimensions (a row broadcast over rows, a block over a
/// batch, as `x @ w + b` reads `b`) is read as one contiguous run, and a column broadcast
/// across columns as its elements spread: every dtype, runs of every length modulo 4
/// (whole vectors or not), views at offsets, copied alone and combined with a full
/// operand, eagerly and under `jit`.
/// On the default device, on one binding windows of 256 bytes (runs across windows),
/// and with float16 emulated.
#[test]
fn repeated_runs_broadcast_for_every_dtype_length_and_offset() {
    let mut r = rng();
    for options in broadcast_devices() {
        let dev = Device::new(options).unwrap();
        olympus::with_device(&dev, || repeated_runs(&mut r));
    }
}

/// Blocks of an array repeated along middle dimensions (`[a, c]` broadcast to
/// `[a, b, c]`, as `vmap` broadcasts a per-example row across a product) are read as
/// tiles, and columns spread over whole vectors as one element per vector: every dtype,
/// blocks of every length modulo 4, views at offsets, copied alone and combined with a
/// full operand, eagerly and under `jit`, and summed along each axis under `jit` (the
/// reduction reads them itself). On the default device, on 256-byte binding windows
/// (blocks across windows) and with float16 emulated.
#[test]
fn tiled_blocks_and_vector_spreads_broadcast_for_every_dtype() {
    let mut r = rng();
    for options in broadcast_devices() {
        let dev = Device::new(options).unwrap();
        olympus::with_device(&dev, || tiled_blocks(&mut r));
    }
}

/// The devices the broadcast reads are tested on: the default, one with binding windows
/// of 256 bytes (operands across windows), one with float16 emulated.
fn broadcast_devices() -> [DeviceOptions; 3] {
    [
        DeviceOptions::default(),
        DeviceOptions {
            max_binding_bytes: Some(256),
            ..Default::default()
        },
        DeviceOptions {
            f16: F16Mode::Emulated,
            ..Default::default()
        },
    ]
}

fn tiled_blocks(r: &mut rand::rngs::StdRng) {
    let bits = |a: &olympus::Array| a.to_f64_vec().unwrap();
    let jitted = olympus::jit(|(x, y): (olympus::Array, olympus::Array)| np::maximum(&x, &y));
    let cases = [
        (2usize, 2usize, 2usize),
        (3, 5, 4),
        (2, 3, 5),
        (5, 2, 8),
        (3, 4, 8),
        (3, 7, 13),
        (2, 8, 12),
        (4, 3, 64),
    ];
    for d in every_dtype() {
        for (blocks, repeats, run) in cases {
            for off in [0usize, 1, 4] {
                // `blocks` blocks of `run` elements as `[blocks, 1, run]`, and twice as
                // many as `[2, blocks, 1, run]` and `[blocks, 1, 1, run]` (two block
                // dimensions; a unit dimension between the blocks and the repeats).
                for form in 0..3 {
                    let count = if form == 1 { 2 * blocks } else { blocks };
                    let n = count * run;
                    let base = stored(&random_values(r, d, n + off), d);
                    let y = make(&base, &[n + off], d)
                        .slice(olympus::s![off as isize..])
                        .unwrap();
                    let (b, rp, ru) = (blocks as isize, repeats, run as isize);
                    let (rows, shape): (_, Vec<usize>) = match form {
                        0 => (np::reshape(&y, &[b, 1, ru]), vec![blocks, rp, run]),
                        1 => (np::reshape(&y, &[2, b, 1, ru]), vec![2, blocks, rp, run]),
                        _ => (np::reshape(&y, &[b, 1, 1, ru]), vec![blocks, 1, rp, run]),
                    };
                    let tile = np::broadcast_to(rows.unwrap(), &shape).unwrap();
                    let total = count * repeats * run;
                    let at = |e: usize| off + e / (repeats * run) * run + e % run;
                    let want: Vec<f64> = (0..total).map(|e| base[at(e)]).collect();
                    let what = format!("{d} {count} blocks of {run} repeated {repeats} as {shape:?} at offset {off}");
                    assert_eq!(bits(&np::copy(&tile).unwrap()), want, "copy of {what}");
                    let xv = stored(&random_values(r, d, total), d);
                    let x = make(&xv, &shape, d);
                    let most: Vec<f64> = xv.iter().zip(&want).map(|(a, b)| a.max(*b)).collect();
                    assert_eq!(
                        bits(&np::maximum(&x, &tile).unwrap()),
                        most,
                        "max with {what}"
                    );
                    let got = jitted.call((x.clone(), tile.clone())).unwrap();
                    assert_eq!(bits(&got), most, "jitted max with {what}");
                    if form != 0 || !matches!(d, DType::Float32 | DType::Float16) {
                        continue;
                    }
                    // Sums of `x * tile` along each axis, the product read by the
                    // reduction (along the repeats, the tile's blocks are spread).
                    for axis in 0..3isize {
                        let f = olympus::jit(move |(x, t): (olympus::Array, olympus::Array)| {
                            np::sum(np::multiply(&x, &t)?, Some(&[axis]), false)
                        });
                        let got = bits(&f.call((x.clone(), tile.clone())).unwrap());
                        let product = np::multiply(&x, np::copy(&tile).unwrap()).unwrap();
                        let eager = bits(&np::sum(&product, Some(&[axis]), false).unwrap());
                        let same = got
                            .iter()
                            .zip(&eager)
                            .all(|(a, b)| a.to_bits() == b.to_bits());
                        assert!(
                            same && got.len() == eager.len(),
                            "sum over {axis} of x * {what}: {got:?} against {eager:?}"
                        );
                    }
                }
                // Each element spread over `repeats * 4` (whole vectors) and `repeats`.
                let n = blocks * run;
                let base = stored(&random_values(r, d, n + off), d);
                let y = make(&base, &[n + off], d)
                    .slice(olympus::s![off as isize..])
                    .unwrap();
                for times in [4 * repeats, repeats] {
                    let column = np::reshape(&y, &[n as isize, 1]).unwrap();
                    let spread = np::broadcast_to(&column, &[n, times]).unwrap();
                    let want: Vec<f64> = (0..n * times).map(|e| base[off + e / times]).collect();
                    let xv = stored(&random_values(r, d, n * times), d);
                    let x = make(&xv, &[n, times], d);
                    let most: Vec<f64> = xv.iter().zip(&want).map(|(a, b)| a.max(*b)).collect();
                    let got = jitted.call((x.clone(), spread.clone())).unwrap();
                    assert_eq!(
                        bits(&got),
                        most,
                        "jitted max with {d} spread {times} of {n} at offset {off}"
                    );
                }
            }
        }
    }
}

/// Views that start inside a vector (`x[1:]`, `x[3:]`) are read as contiguous runs,
/// `i + offset`: every dtype, lengths around the vector and workgroup edges, through one
/// binding and through 256-byte windows, eagerly and jitted, as a copy, as an operand of
/// `maximum` and in `diff`.
#[test]
fn offset_views_read_as_contiguous_runs_for_every_dtype_and_length() {
    let mut r = rng();
    let bits = |a: &olympus::Array| a.to_f64_vec().unwrap();
    for options in [
        DeviceOptions::default(),
        DeviceOptions {
            max_binding_bytes: Some(256),
            ..Default::default()
        },
    ] {
        let dev = Device::new(options).unwrap();
        olympus::with_device(&dev, || {
            for d in every_dtype() {
                for n in [0usize, 1, 2, 3, 4, 5, 7, 8, 9, 63, 64, 65, 1023, 1024, 1027] {
                    for off in [1usize, 2, 3, 5] {
                        let base = stored(&random_values(&mut r, d, n + off), d);
                        let x = make(&base, &[n + off], d)
                            .slice(olympus::s![off as isize..])
                            .unwrap();
                        let yv = stored(&random_values(&mut r, d, n), d);
                        let y = make(&yv, &[n], d);
                        let what = format!("{d} of {n} at offset {off}");
                        assert_eq!(bits(&np::copy(&x).unwrap()), base[off..], "copy of {what}");
                        let most: Vec<f64> = base[off..]
                            .iter()
                            .zip(&yv)
                            .map(|(a, b)| a.max(*b))
                            .collect();
                        let got = np::maximum(&x, &y).unwrap();
                        assert_eq!(bits(&got), most, "max of {what}");
                        let jitted = olympus::jit(|(x, y): (olympus::Array, olympus::Array)| {
                            np::maximum(&x, &y)
                        });
                        let got = jitted.call((x.clone(), y.clone())).unwrap();
                        assert_eq!(bits(&got), most, "jitted max of {what}");
                    }
                }
            }
            // `diff` subtracts two views one element apart.
            let v: Vec<f64> = (0..1031).map(|i| ((i * 7919) % 1000) as f64).collect();
            let x = make(&v, &[1031], DType::Float32);
            let want: Vec<f64> = v.windows(2).map(|w| w[1] - w[0]).collect();
            assert_eq!(
                bits(&np::diff(&x, 1, -1, None, None).unwrap()),
                want,
                "diff"
            );
        });
    }
}

/// Sums over either axis of `x + b` (a broadcast row) and `x + c` (a broadcast column),
/// jitted so the reduction reads the sum's operands itself, against host sums.
#[test]
fn fused_reductions_read_repeated_runs_and_spreads() {
    let mut r = rng();
    for (rows, cols) in [(3usize, 8usize), (37, 13), (300, 64), (5, 1000)] {
        for d in [DType::Float32, DType::Int32] {
            let xv = stored(&random_values(&mut r, d, rows * cols), d);
            let bv = stored(&random_values(&mut r, d, cols), d);
            let cv = stored(&random_values(&mut r, d, rows), d);
            let x = make(&xv, &[rows, cols], d);
            let b = make(&bv, &[cols], d);
            let c = make(&cv, &[rows, 1], d);
            for axis in [0isize, 1] {
                let f = olympus::jit(move |(x, y): (olympus::Array, olympus::Array)| {
                    np::sum(np::add(&x, &y)?, Some(&[axis]), false)
                });
                for (name, y, at) in [
                    (
                        "row",
                        &b,
                        &(|_: usize, j: usize| j) as &dyn Fn(usize, usize) -> usize,
                    ),
                    ("column", &c, &|i: usize, _: usize| i),
                ] {
                    let yv = if name == "row" { &bv } else { &cv };
                    let want: Vec<f64> = if axis == 0 {
                        (0..cols)
                            .map(|j| (0..rows).map(|i| xv[i * cols + j] + yv[at(i, j)]).sum())
                            .collect()
                    } else {
                        (0..rows)
                            .map(|i| (0..cols).map(|j| xv[i * cols + j] + yv[at(i, j)]).sum())
                            .collect()
                    };
                    let got = f.call((x.clone(), y.clone())).unwrap();
                    let what = format!("sum over axis {axis} of x + {name}, {rows}x{cols} {d}");
                    let g = got.to_f64_vec().unwrap();
                    assert_eq!(g.len(), want.len(), "{what}");
                    for (k, (a, w)) in g.iter().zip(&want).enumerate() {
                        // int32 sums wrap.
                        let w = &if d == DType::Int32 {
                            f64::from(*w as i64 as i32)
                        } else {
                            *w
                        };
                        let tol = if d == DType::Float32 {
                            1e-4 * (1.0 + w.abs())
                        } else {
                            0.0
                        };
                        assert!((a - w).abs() <= tol, "{what} [{k}]: {a} against {w}");
                    }
                }
            }
        }
    }
}

fn repeated_runs(r: &mut rand::rngs::StdRng) {
    let bits = |a: &olympus::Array| a.to_f64_vec().unwrap();
    for d in every_dtype() {
        for run in [2usize, 3, 4, 5, 7, 8, 12, 13, 64, 65] {
            for off in [0usize, 1, 4] {
                let base = stored(&random_values(r, d, run + off), d);
                let y = make(&base, &[run + off], d)
                    .slice(olympus::s![off as isize..])
                    .unwrap();
                for shape in [vec![2, run], vec![9, run], vec![3, 2, run]] {
                    let n: usize = shape.iter().product();
                    // A block of the last two dimensions repeated over the first.
                    let (yb, period) = if shape.len() == 3 {
                        let block = np::broadcast_to(&y, &[1, 2, run]).unwrap();
                        (np::copy(&block).unwrap(), run)
                    } else {
                        (y.clone(), run)
                    };
                    let want: Vec<f64> = (0..n).map(|e| base[off + e % period]).collect();
                    let what = format!("{d} run {run} offset {off} over {shape:?}");
                    let copied = np::copy(np::broadcast_to(&yb, &shape).unwrap()).unwrap();
                    assert_eq!(bits(&copied), want, "copy of {what}");
                    let xv = stored(&random_values(r, d, n), d);
                    let x = make(&xv, &shape, d);
                    let most: Vec<f64> = xv.iter().zip(&want).map(|(a, b)| a.max(*b)).collect();
                    assert_eq!(
                        bits(&np::maximum(&x, &yb).unwrap()),
                        most,
                        "max with {what}"
                    );
                    let jitted = olympus::jit(|(x, y): (olympus::Array, olympus::Array)| {
                        np::maximum(&x, &y)
                    });
                    let got = jitted.call((x.clone(), yb.clone())).unwrap();
                    assert_eq!(bits(&got), most, "jitted max with {what}");
                    // Each element spread along the trailing dimension (a column
                    // broadcast across columns).
                    let column = np::expand_dims(&y, &[-1]).unwrap();
                    let spread_shape = [run, shape[0]];
                    let spread = np::copy(np::broadcast_to(&column, &spread_shape).unwrap());
                    let want: Vec<f64> = (0..run * shape[0])
                        .map(|e| base[off + e / shape[0]])
                        .collect();
                    assert_eq!(bits(&spread.unwrap()), want, "spread of {what}");
                }
            }
        }
    }
}
