//! Hostile sizes and indices: every call gets a clear error or the right value, never an
//! abort, a panic or a wrapped shape. Cases that could abort the process (a host
//! allocation too large, memory exhausted) run in a child process of this test binary
//! under an address-space limit, so a regression fails one test instead of the suite.

use olympus::numpy::{self as np, PadMode};
use olympus::{random, s, Array, DType, Error};
use std::process::Command;

/// Asserts `r` is an error naming `func` (and, if given, of the `OutOfMemory` kind).
fn assert_err<T: std::fmt::Debug>(what: &str, r: olympus::Result<T>, func: &str, oom: bool) {
    match r {
        Ok(v) => panic!("{what}: expected an error, got {v:?}"),
        Err(e) => {
            let msg = e.to_string();
            assert!(
                msg.starts_with(&format!("{func}:")),
                "{what}: the error should name `{func}`: {msg}"
            );
            if oom {
                assert!(
                    matches!(e, Error::OutOfMemory { .. }),
                    "{what}: expected OutOfMemory, got {msg}"
                );
            }
        }
    }
}

const CHILD_ENV: &str = "OLYMPUS_LIMITS_CASE";

/// Runs `case` (a name `child` understands) in a child process limited to `limit_gib` GiB
/// of address space; returns its output, after asserting it exited normally.
fn in_child(case: &str, limit_gib: u64) -> String {
    let exe = std::env::current_exe().expect("test binary path");
    let kib = limit_gib << 20;
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {kib} && exec \"$0\" limits::child --exact --ignored --nocapture --test-threads=1"
        ))
        .arg(exe)
        .env(CHILD_ENV, case)
        .output()
        .expect("spawn the child test process");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && text.contains(&format!("CASE {case} OK")),
        "case {case} failed in the child process ({}):\n{text}",
        out.status
    );
    text
}

/// The child side of `in_child`: runs the case named by the environment.
#[test]
#[ignore = "runs only as a child process of the limits tests"]
fn child() {
    let Ok(case) = std::env::var(CHILD_ENV) else {
        return;
    };
    match case.as_str() {
        "host_sizes" => host_sizes(),
        "recover" => recover_after_oom(),
        "readback" => readback_past_memory(),
        other => panic!("unknown case {other}"),
    }
    println!("CASE {case} OK");
}

/// Creation functions sized past memory: each is `OutOfMemory` naming the function; none
/// builds the host vector first (the child would abort).
fn host_sizes() {
    assert_err(
        "eye 2^20",
        np::eye(1 << 20, None, 0, DType::Float32),
        "eye",
        true,
    );
    assert_err(
        "linspace 2^40",
        np::linspace(0.0, 1.0, 1 << 40, true),
        "linspace",
        true,
    );
    assert_err(
        "arange 4.2e9 floats",
        np::arange((0.0, 4.2e9, 1.0)),
        "arange",
        false,
    );
    assert_err(
        "repeat 2^35",
        np::repeat(np::array([1.0f32, 2.0]).unwrap(), 1usize << 35, None),
        "repeat",
        true,
    );
    assert_err(
        "repeat counts 2^35",
        np::repeat(
            np::array([1.0f32, 2.0]).unwrap(),
            vec![1usize << 35, 1],
            None,
        ),
        "repeat",
        true,
    );
    assert_err(
        "zeros usize::MAX",
        np::zeros(&[usize::MAX], DType::Float32),
        "zeros",
        false,
    );
    assert_err(
        "full 2^40",
        np::full(&[1 << 20, 1 << 20], 1.0f32, None),
        "full",
        true,
    );
    // Bools are stored as u32: 2^31 of them would be an 8 GiB host copy before upload.
    let bools = vec![true; 1 << 31];
    assert_err(
        "from_slice 2^31 bools",
        Array::from_slice(&bools, &[1 << 31]),
        "Array::from_slice",
        true,
    );
}

#[test]
fn creation_past_memory_is_an_error_not_an_abort() {
    in_child("host_sizes", 8);
}

/// Fill the device until it refuses, drop everything, and carry on: the pool gives the
/// memory back, and a new kernel (a fresh compile) still works.
fn recover_after_oom() {
    let mut held = Vec::new();
    let mut refused = false;
    for _ in 0..64 {
        match np::ones(&[1 << 28], DType::Float32) {
            Ok(a) => {
                a.block_until_ready().expect("fill");
                held.push(a);
            }
            Err(e) => {
                assert!(
                    matches!(e, Error::OutOfMemory { .. }),
                    "expected OutOfMemory, got {e}"
                );
                refused = true;
                break;
            }
        }
    }
    // A software adapter's memory is the process's, which the child's limit caps; a GPU
    // with more than 64 GiB may accept every array. Through wgpu's GL backend llvmpipe
    // reports no failed allocation within 64 GiB under the limit, so there only the
    // recovery below is checked.
    let device = olympus::current_device().unwrap();
    let cpu = format!("{:?}", device.info().device_type) == "Cpu";
    let gl = device.info().backend == olympus::Backend::Gl;
    assert!(refused || !cpu || gl, "the device never ran out of memory");
    drop(held);
    olympus::current_device()
        .unwrap()
        .synchronize()
        .expect("synchronize");
    let x = np::arange(10).unwrap();
    let y = np::cumprod(np::sin(&x).unwrap(), None).unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap().len(), 10);
    assert_eq!(np::sum(&x, None, false).unwrap().item::<i32>().unwrap(), 45);
}

/// A readback whose host copy does not fit beside the array and its staging copy:
/// `OutOfMemory` naming `to_vec` (the host room is reserved before anything is copied),
/// never an abort; then a smaller part of the same array and new kernels still work.
/// Sized for a software adapter, whose buffers are the process's memory (about 2 GiB of
/// address space once the array exists, so the staging copy fits under the 4 GiB limit
/// and the host vector after it does not); a GPU's or GL's array lives elsewhere and the
/// readback may succeed there. wgpu's GL backend reports llvmpipe's failed allocation as
/// a lost device, so there the readback must only fail cleanly.
fn readback_past_memory() {
    let n = 320 << 20; // 1.25 GiB of float32
    let a = np::ones(&[n], DType::Float32).unwrap();
    a.block_until_ready().unwrap();
    let device = olympus::current_device().unwrap();
    let cpu = format!("{:?}", device.info().device_type) == "Cpu";
    if device.info().backend == olympus::Backend::Gl {
        if let Err(e) = a.to_vec::<f32>() {
            assert!(
                matches!(e, Error::OutOfMemory { .. } | Error::DeviceLost { .. }),
                "{e}"
            );
        }
        return;
    }
    let must_fail = cpu;
    let whole = a.to_vec::<f32>();
    let whole_async = futures::executor::block_on(a.to_vec_async::<f32>());
    for (func, r) in [("to_vec", whole), ("to_vec_async", whole_async)] {
        match r {
            Ok(v) if !must_fail => assert!(v.iter().all(|&x| x == 1.0)),
            r => assert_err(&format!("{func} past memory"), r, func, true),
        }
    }
    // Twice the bytes as f64.
    match a.to_f64_vec() {
        Ok(v) if !must_fail => assert!(v.iter().all(|&x| x == 1.0)),
        r => assert_err("to_f64_vec past memory", r, "to_f64_vec", true),
    }
    let part = a
        .slice(s![..(n / 4) as isize])
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    assert!(part.iter().all(|&v| v == 1.0));
    drop(part);
    let x = np::arange(10).unwrap();
    let y = np::cumprod(np::cos(&x).unwrap(), None).unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap().len(), 10);
}

#[test]
fn readback_past_memory_is_an_error_not_an_abort() {
    in_child("readback", 4);
}

#[test]
fn out_of_memory_is_recoverable() {
    in_child("recover", 8);
}

#[test]
fn shape_sums_never_wrap() {
    let x = np::arange((0.0, 6.0, 1.0)).unwrap();
    for w in [
        (usize::MAX, 0),
        (1 << 63, 1 << 63),
        (usize::MAX - 5, 0),
        (0, usize::MAX),
    ] {
        assert_err(
            &format!("pad {w:?}"),
            np::pad(&x, &[w], PadMode::Constant(0.0)),
            "pad",
            false,
        );
    }
    let one = np::ones(&[1], DType::Float32).unwrap();
    let half = np::broadcast_to(&one, &[1 << 63]).unwrap();
    assert_err(
        "concatenate 2 x 2^63",
        np::concatenate([&half, &half], 0),
        "concatenate",
        false,
    );
    let quarter = np::broadcast_to(&one, &[1 << 62]).unwrap();
    assert_err(
        "concatenate 4 x 2^62",
        np::concatenate([&quarter, &quarter, &quarter, &quarter], 0),
        "concatenate",
        false,
    );
    assert_err("stack 2^63", np::stack([&half, &half], 0), "stack", false);
    assert_err("tile", np::tile(&x, &[usize::MAX]), "tile", false);
    assert_err("tile 2-d", np::tile(&x, &[1 << 62, 1 << 62]), "tile", false);
    assert_err(
        "repeat usize::MAX",
        np::repeat(&x, usize::MAX, None),
        "repeat",
        false,
    );
    assert_err(
        "repeat counts",
        np::repeat(&x, vec![usize::MAX, usize::MAX, 1, 1, 1, 1], None),
        "repeat",
        false,
    );
    assert_err(
        "broadcast_to",
        np::broadcast_to(&one, &[1 << 40, 1 << 40]),
        "broadcast_to",
        false,
    );
    assert_err(
        "reshape",
        np::reshape(&x, &[isize::MAX, 2]),
        "reshape",
        false,
    );
    assert_err(
        "zeros",
        np::zeros(&[1 << 40, 1 << 40], DType::Float32),
        "zeros",
        false,
    );
    assert_err(
        "eye",
        np::eye(usize::MAX, Some(2), 0, DType::Float32),
        "eye",
        false,
    );
    // Positions past int32 along the searched or reduced axis (views: no memory).
    let long = np::broadcast_to(&one, &[(1 << 31) + 5]).unwrap();
    assert_err("argmax", np::argmax(&long, Some(0), false), "argmax", false);
    assert_err(
        "searchsorted",
        np::searchsorted(&long, 1.0, np::Side::Left, None),
        "searchsorted",
        false,
    );
    let far = np::eye(3, None, isize::MIN, DType::Float32).unwrap();
    assert_eq!(far.to_vec::<f32>().unwrap(), vec![0.0; 9]);
    let far = np::eye(3, None, isize::MAX, DType::Float32).unwrap();
    assert_eq!(far.to_vec::<f32>().unwrap(), vec![0.0; 9]);
}

#[test]
#[allow(clippy::reversed_empty_ranges)] // NumPy's backwards slices are written as such ranges
fn extreme_slice_steps() {
    let x = np::arange((0.0, 6.0, 1.0)).unwrap();
    let get = |spec| x.slice(spec).unwrap().to_vec::<f32>().unwrap();
    assert_eq!(get(s![..;isize::MIN]), vec![5.0]);
    assert_eq!(get(s![..;isize::MAX]), vec![0.0]);
    assert_eq!(get(s![isize::MIN..isize::MAX;isize::MAX]), vec![0.0]);
    assert_eq!(get(s![isize::MAX..isize::MIN;isize::MIN]), vec![5.0]);
    assert_eq!(get(s![isize::MIN..isize::MAX;-1]), Vec::<f32>::new());
    assert_eq!(get(s![-1..isize::MIN;-2]), vec![5.0, 3.0, 1.0]);
    // The gradient of a one-element window with a huge step: one 1 where it was read.
    let g = olympus::grad(|x: Array| np::sum(x.slice(s![1..;isize::MAX])?, None, false))(x.clone())
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(g, vec![0.0, 1.0, 0.0, 0.0, 0.0, 0.0]);
    // Integers past the ends clamp, as JAX's do, whatever their size.
    assert_eq!(get(s![isize::MIN]), vec![0.0]);
    assert_eq!(get(s![isize::MAX]), vec![5.0]);
    let empty = np::zeros(&[0], DType::Float32).unwrap();
    assert_err("index", empty.slice(s![isize::MAX]), "slice", false);
}

#[test]
fn indices_past_32_bits() {
    let n = (1usize << 32) + 5;
    let v = np::broadcast_to(np::arange((0.0, 3.0, 1.0)).unwrap(), &[n, 3]).unwrap();
    let flat = np::reshape(&v, &[3 * n as isize]);
    // A reshape of a broadcast view needs a copy of 3 * 2^32 floats: too large for any
    // binding, so an error rather than a wrong view.
    assert_err("reshape of a broadcast view", flat, "reshape", true);
    let col = np::broadcast_to(np::array([7.0f32]).unwrap(), &[n]).unwrap();
    let got = np::take(&col, np::array([10, -6, -1]).unwrap(), None)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(got, vec![7.0; 3]);
    let rows = np::take(&v, np::array([10, -6, -1]).unwrap(), Some(0))
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(rows, [0.0, 1.0, 2.0].repeat(3));
    assert_eq!(
        v.slice(s![-1, ..]).unwrap().to_vec::<f32>().unwrap(),
        vec![0.0, 1.0, 2.0]
    );
    assert_eq!(
        v.slice(s![(1i64 << 32) as isize + 2, 2])
            .unwrap()
            .item::<f32>()
            .unwrap(),
        2.0
    );
}

/// `(1, k) @ (k, 1)` of broadcast ones: exact, whatever the 32-bit counters inside.
fn contraction_of_broadcast_ones(k: usize) {
    let one = np::ones(&[1, 1], DType::Float32).unwrap();
    let a = np::broadcast_to(&one, &[1, k]).unwrap();
    let b = np::broadcast_to(&one, &[k, 1]).unwrap();
    let got = np::matmul(&a, &b).unwrap().to_vec::<f32>().unwrap();
    assert_eq!(got, vec![k as f32]);
}

#[test]
fn long_contraction_of_broadcast_ones() {
    contraction_of_broadcast_ones(1 << 26);
}

#[test]
#[ignore = "minutes on a software adapter; run with --ignored"]
fn contraction_of_2_pow_31_broadcast_ones() {
    contraction_of_broadcast_ones(1 << 31);
}

#[test]
fn randint_bounds_outside_the_dtype() {
    let key = random::key(0).unwrap();
    assert_err(
        "randint int32 i64 bounds",
        random::randint(&key, &[10], i64::MIN, i64::MAX, DType::Int32),
        "randint",
        false,
    );
    assert_err(
        "randint uint32 negative",
        random::randint(&key, &[10], -1, 10, DType::UInt32),
        "randint",
        false,
    );
    // The exclusive bound one past the dtype's largest value is in range.
    let full = random::randint(&key, &[1000], i64::from(i32::MIN), 1 << 31, DType::Int32)
        .unwrap()
        .to_vec::<i32>()
        .unwrap();
    assert!(full.iter().any(|&v| v < -(1 << 30)) && full.iter().any(|&v| v > 1 << 30));
    let top = random::randint(&key, &[1000], i64::from(i32::MAX), 1 << 31, DType::Int32)
        .unwrap()
        .to_vec::<i32>()
        .unwrap();
    assert!(top.iter().all(|&v| v == i32::MAX));
}

#[test]
fn largest_buffer_limit_is_stated() {
    // Just under the adapter's max_buffer_size but past one storage binding: the array,
    // or an error that states the limit it hit.
    match np::ones(&[(1 << 29) - 64], DType::Float32) {
        // A device with few storage bindings (GL's 16 of 128 MiB) reads it in slabs.
        Ok(a) => {
            let s = np::sum(&a, None, false).unwrap();
            assert_eq!(s.item::<f32>().unwrap(), ((1u64 << 29) - 64) as f32);
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(msg.contains("limit") || msg.contains("largest"), "{msg}");
        }
    }
}

/// Every size-, index- and axis-taking function with extreme arguments: a result or an
/// error naming the function, never a panic (debug builds check every overflow).
#[test]
fn extreme_arguments_never_panic() {
    let x = np::reshape(np::arange((0.0, 6.0, 1.0)).unwrap(), &[2, 3]).unwrap();
    let key = random::key(1).unwrap();
    let big = [usize::MAX, 1 << 63, 1 << 32];
    let axes = [isize::MIN, isize::MAX, -3, 2];
    // `Ok` or an error from `func`.
    fn check<T>(func: &str, r: olympus::Result<T>) {
        if let Err(e) = r {
            let msg = e.to_string();
            assert!(msg.starts_with(&format!("{func}:")), "{func}: {msg}");
        }
    }
    for &n in &big {
        check("zeros", np::zeros(&[n], DType::Float32));
        check("ones", np::ones(&[n, n], DType::Int32));
        check("empty", np::empty(&[2, n], DType::Float16));
        check("full", np::full(&[n], 2.0f32, None));
        check("linspace", np::linspace(0.0, 1.0, n, false));
        check("eye", np::eye(n, Some(n), 1, DType::Bool));
        check("identity", np::identity(n, DType::Float32));
        check("split", np::split(&x, n, 1));
        check("array_split", np::array_split(&x, n, 1));
        check("tile", np::tile(&x, &[n, 2]));
        check("repeat", np::repeat(&x, n, Some(1)));
        check("pad", np::pad(&x, &[(n, 1), (0, 0)], PadMode::Edge));
        check("broadcast_to", np::broadcast_to(&x, &[n, 2, 3]));
        check("std", np::std(&x, None, n, false));
        check("var", np::var(&x, Some(&[0]), n, true));
        check("split", random::split(&key, n));
        check("bits", random::bits(&key, &[n]));
        check("normal", random::normal(&key, &[n, 2], DType::Float32));
        check(
            "uniform",
            random::uniform(&key, &[n], 0.0, 1.0, DType::Float32),
        );
        check("permutation", random::permutation(&key, n));
        check("gamma", random::gamma(&key, 2.0, &[n], DType::Float32));
    }
    for &a in &axes {
        check("split", np::split(&x, vec![a, 1], 1));
        check("roll", np::roll(&x, &[a], Some(&[a])));
        check("roll", np::roll(&x, &[a], None));
        check("tril", np::tril(&x, a));
        check("triu", np::triu(&x, a));
        check("diagonal", np::diagonal(&x, a, 0, 1));
        check("diagonal", np::diagonal(&x, 0, a, 1));
        check("trace", np::trace(&x, a, 0, 1));
        check("eye", np::eye(3, Some(4), a, DType::Float32));
        check("reshape", np::reshape(&x, &[a, -1]));
        check("reshape", np::reshape(&x, &[a]));
        check("transpose", np::transpose(&x, Some(&[a, 0])));
        check("swapaxes", np::swapaxes(&x, a, 0));
        check("moveaxis", np::moveaxis(&x, &[a], &[0]));
        check("expand_dims", np::expand_dims(&x, &[a]));
        check("squeeze", np::squeeze(&x, Some(&[a])));
        check("flip", np::flip(&x, Some(&[a])));
        check("sum", np::sum(&x, Some(&[a]), false));
        check("argmax", np::argmax(&x, Some(a), false));
        check("cumsum", np::cumsum(&x, Some(a)));
        check("sort", np::sort(&x, Some(a)));
        check("take", np::take(&x, [0], Some(a)));
        check("take", np::take(&x, [a], None));
        check(
            "take_along_axis",
            np::take_along_axis(&x, np::zeros(&[2, 1], DType::Int32).unwrap(), a),
        );
        check("concatenate", np::concatenate([&x, &x], a));
        check("stack", np::stack([&x, &x], a));
        check("shuffle", random::shuffle(&key, &x, a));
        check("categorical", random::categorical(&key, &x, a));
        check("slice", x.slice(s![a..;a]));
        check("slice", x.slice(s![.., a]));
    }
    // Empty arrays whose other dimensions multiply past usize: empty, no overflow.
    let empty = np::zeros(&[0, 1 << 40, 1 << 40], DType::Float32).unwrap();
    assert_eq!(empty.size(), 0);
    assert_eq!(
        np::add(&empty, 1.0f32).unwrap().shape(),
        &[0, 1 << 40, 1 << 40]
    );
    check(
        "randint",
        random::randint(&key, &[3], i64::MAX, i64::MIN, DType::UInt32),
    );
    check(
        "bernoulli",
        random::bernoulli(&key, f64::NAN, &[usize::MAX]),
    );
    check("arange", np::arange((0.0, f64::MAX, f64::MIN_POSITIVE)));
    check("arange", np::arange((i64::MIN, i64::MAX, 1)));
    check("arange", np::arange((0usize, usize::MAX, 1)));
}

/// A `.npy` header declaring more elements than any device holds: an error naming `load`
/// before anything is read (the file has 8 bytes of data).
#[test]
fn npy_header_sizes_are_checked() {
    let dir = std::env::temp_dir();
    for (i, shape) in [
        "(1099511627776,)",
        "(4294967296, 4294967296)",
        "(18446744073709551615, 2)",
        "(0, 1099511627776, 1099511627776)",
        "[1099511627776]",
    ]
    .into_iter()
    .enumerate()
    {
        let mut header = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}");
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(' ');
        }
        header.push('\n');
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
        bytes.extend_from_slice(header.as_bytes());
        bytes.extend_from_slice(&[0u8; 8]);
        let path = dir.join(format!("olympus_limits_{}_{i}.npy", std::process::id()));
        std::fs::write(&path, &bytes).unwrap();
        let r = np::load(&path);
        std::fs::remove_file(&path).ok();
        assert_err(&format!("load {shape}"), r, "load", false);
    }
}
