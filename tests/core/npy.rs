//! NumPy files: golden files written by NumPy (tests/data/npy, from tests/data/gen_npy.py)
//! load with the right values, and files Olympus writes carry the same header fields and
//! the same data bytes as NumPy's.

use std::path::PathBuf;

use half::f16;
use olympus::{numpy as np, DType};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/npy")
        .join(name)
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("olympus-npy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// (descr, fortran_order, shape, data bytes) of an .npy file, parsed independently.
fn parse(bytes: &[u8]) -> (String, bool, Vec<usize>, Vec<u8>) {
    assert_eq!(&bytes[..6], b"\x93NUMPY");
    let (hlen, start) = if bytes[6] == 1 {
        (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10)
    } else {
        (
            u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize,
            12,
        )
    };
    let header = std::str::from_utf8(&bytes[start..start + hlen]).unwrap();
    let field = |key: &str| -> String {
        let i = header.find(key).unwrap() + key.len();
        header[i..].trim_start_matches([':', ' ']).to_string()
    };
    let descr = field("'descr'");
    let descr = descr[1..descr[1..].find('\'').unwrap() + 1].to_string();
    let fortran = field("'fortran_order'").starts_with("True");
    let shape_s = field("'shape'");
    let inner = &shape_s[1..shape_s.find(')').unwrap()];
    let shape = inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    (descr, fortran, shape, bytes[start + hlen..].to_vec())
}

const BASE: [f64; 6] = [1.5, -2.25, 3.0, 0.0, -0.0, 65504.0];

#[test]
fn numpy_files_load_with_their_values() {
    let f4 = np::load(data("f4.npy")).unwrap();
    assert_eq!((f4.dtype(), f4.shape()), (DType::Float32, &[2usize, 3][..]));
    assert_eq!(
        f4.to_vec::<f32>().unwrap(),
        BASE.iter().map(|&v| v as f32).collect::<Vec<_>>()
    );
    assert_eq!(
        np::load(data("f4_be.npy"))
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        f4.to_vec::<f32>().unwrap()
    );
    let f2: Vec<f16> = BASE.iter().map(|&v| f16::from_f64(v)).collect();
    for name in ["f2.npy", "f2_be.npy"] {
        let a = np::load(data(name)).unwrap();
        assert_eq!(a.dtype(), DType::Float16);
        assert_eq!(
            a.to_vec::<f16>()
                .unwrap()
                .iter()
                .map(|h| h.to_bits())
                .collect::<Vec<_>>(),
            f2.iter().map(|h| h.to_bits()).collect::<Vec<_>>()
        );
    }
    assert_eq!(
        np::load(data("i4.npy")).unwrap().to_vec::<i32>().unwrap(),
        vec![1, -2, 3, i32::MAX, i32::MIN, 0]
    );
    assert_eq!(
        np::load(data("i4_be.npy"))
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        vec![1, -2, 3, 4, 5, -6]
    );
    assert_eq!(
        np::load(data("u4.npy")).unwrap().to_vec::<u32>().unwrap(),
        vec![1, 2, 3, u32::MAX, 0, 7]
    );
    assert_eq!(
        np::load(data("b1.npy")).unwrap().to_vec::<bool>().unwrap(),
        vec![true, false, true, false, false, true]
    );
    let s = np::load(data("f4_scalar.npy")).unwrap();
    assert_eq!((s.shape(), s.item::<f32>().unwrap()), (&[][..], 3.5));
    assert_eq!(np::load(data("f4_empty.npy")).unwrap().shape(), &[0, 3]);
    // Fortran order: same logical values.
    let f = np::load(data("f4_fortran.npy")).unwrap();
    assert_eq!(f.shape(), &[3, 4]);
    assert_eq!(
        f.to_vec::<f32>().unwrap(),
        (0..12).map(|v| v as f32).collect::<Vec<_>>()
    );
    assert_eq!(
        np::load(data("i4_fortran_be.npy"))
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        vec![0, 1, 2, 3, 4, 5]
    );
    // NumPy's 64-bit and small types, canonicalised as JAX does.
    let f8 = np::load(data("f8.npy")).unwrap();
    assert_eq!(
        (f8.dtype(), f8.to_vec::<f32>().unwrap()),
        (DType::Float32, vec![0.1f32, 1e10, -2.5])
    );
    assert_eq!(
        np::load(data("i8.npy")).unwrap().to_vec::<i32>().unwrap(),
        vec![5, -7, i32::MAX]
    );
    assert_eq!(
        np::load(data("u1.npy")).unwrap().to_vec::<u8>().unwrap(),
        vec![0, 200, 255]
    );
    assert_eq!(
        np::load(data("i2.npy")).unwrap().to_vec::<i16>().unwrap(),
        vec![-300, 12, 32767]
    );
    // Archives.
    let z = np::load_npz(data("archive.npz")).unwrap();
    assert_eq!(
        z.keys().cloned().collect::<Vec<_>>(),
        vec!["steps".to_string(), "weights".to_string()]
    );
    assert_eq!(z["steps"].to_vec::<i32>().unwrap(), vec![1, 2, 3]);
    assert_eq!(
        z["weights"].to_vec::<f32>().unwrap(),
        f4.to_vec::<f32>().unwrap()
    );
}

#[test]
fn bad_files_are_clear_errors_naming_the_file() {
    for (name, needle) in [
        ("c16.npy", "<c16"),
        ("object.npy", "|O"),
        ("U3.npy", "<U3"),
        ("i8_overflow.npy", "does not fit"),
        ("truncated.npy", "truncated.npy"),
        ("bad_magic.npy", "not a valid .npy"),
        ("missing.npy", "missing.npy"),
    ] {
        let e = np::load(data(name)).unwrap_err().to_string();
        assert!(
            e.contains("load") && e.contains(name) && e.contains(needle),
            "{name}: {e}"
        );
    }
    let e = np::load_npz(data("f4.npy")).unwrap_err().to_string();
    assert!(e.contains("load_npz") && e.contains("f4.npy"), "{e}");
}

#[test]
fn files_olympus_writes_match_numpys() {
    // Every file NumPy 2.4.6 wrote for an array Olympus holds, written back byte for byte:
    // the header text (`(256,)`, `(2, 3, 4)`, `()`), its padding and the data.
    for name in [
        "f4.npy",
        "f2.npy",
        "i4.npy",
        "u4.npy",
        "b1.npy",
        "u1.npy",
        "i2.npy",
        "f4_scalar.npy",
        "f4_empty.npy",
        "f4_256.npy",
        "i1_3d.npy",
        "u2_wide.npy",
        "i4_long_axis.npy",
        "bf16.npy",
    ] {
        let x = np::load(data(name)).unwrap();
        let out = tmp(name);
        np::save(&out, &x).unwrap();
        let ours = std::fs::read(&out).unwrap();
        let theirs = std::fs::read(data(name)).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&ours[..ours.len().min(128)]),
            String::from_utf8_lossy(&theirs[..theirs.len().min(128)]),
            "{name}: the header differs from NumPy's"
        );
        assert!(ours == theirs, "{name}: the bytes differ from NumPy's");
        // And it reads back.
        let back = np::load(&out).unwrap();
        assert_eq!((back.dtype(), back.shape()), (x.dtype(), x.shape()));
    }
    // Written in C order from a Fortran file: NumPy's C-order bytes.
    let x = np::load(data("f4_fortran.npy")).unwrap();
    let out = tmp("f4_fortran.npy");
    np::save(&out, &x).unwrap();
    let ours = parse(&std::fs::read(&out).unwrap());
    assert_eq!(
        (ours.0.as_str(), ours.1, &ours.2),
        ("<f4", false, &vec![3, 4])
    );
    let want: Vec<u8> = (0..12).flat_map(|v| (v as f32).to_le_bytes()).collect();
    assert_eq!(ours.3, want);
    // An archive's members are the files `np.savez` writes.
    let z = np::load_npz(data("archive.npz")).unwrap();
    let out = tmp("archive.npz");
    np::savez(
        &out,
        [
            ("weights", z["weights"].clone()),
            ("steps", z["steps"].clone()),
        ],
    )
    .unwrap();
    let members = |path: &std::path::Path| -> Vec<(String, Vec<u8>)> {
        let mut zip = npyz::zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
        let mut v: Vec<(String, Vec<u8>)> = (0..zip.len())
            .map(|i| {
                let mut f = zip.by_index(i).unwrap();
                let mut bytes = Vec::new();
                std::io::Read::read_to_end(&mut f, &mut bytes).unwrap();
                (f.name().to_string(), bytes)
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        members(&out),
        members(&data("archive.npz")),
        "archive members"
    );
    // Arrays of every kind through an archive, including a view and host data.
    let out = tmp("mixed.npz");
    let t = np::transpose(np::reshape(np::arange(6).unwrap(), &[2, 3]).unwrap(), None).unwrap();
    np::savez(
        &out,
        [("t", t.clone()), ("h", np::asarray(vec![1.5f32]).unwrap())],
    )
    .unwrap();
    let z = np::load_npz(&out).unwrap();
    assert_eq!(z["t"].to_vec::<i32>().unwrap(), t.to_vec::<i32>().unwrap());
    assert_eq!(z["t"].shape(), &[3, 2]);
    assert_eq!(z["h"].to_vec::<f32>().unwrap(), vec![1.5]);
    let e = np::save(std::path::Path::new("/nonexistent-dir/x.npy"), &t)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("save") && e.contains("/nonexistent-dir/x.npy"),
        "{e}"
    );
}
