//! NumPy's `.npy` and `.npz` files through the `npyz` crate (which reads every NumPy dtype,
//! both byte orders and Fortran order, and writes the format NumPy reads).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use half::{bf16, f16};
use npyz::{Order, TypeChar};

use crate::array::Array;
use crate::convert::{operand, ArrayLike};
use crate::dtype::DType;
use crate::error::{Error, Result};

fn io_err(func: &str, path: &Path, e: impl std::fmt::Display) -> Error {
    Error::InvalidArgument {
        func: func.into(),
        reason: format!("{}: {e}", path.display()),
    }
}

/// Reads one array from an `.npy` stream. NumPy's dtypes map to Olympus's as JAX
/// canonicalises them: bool, int8/16/32, uint8/16/32, float16 and float32 as they are,
/// int64 → int32 and uint64 → uint32 (values must fit), float64 → float32, and two-byte
/// raw data (`<V2`, what `np.save` writes for JAX's and ml_dtypes' bfloat16) as bfloat16;
/// anything else is an error.
fn read_npy<R: Read>(func: &str, path: &Path, file: npyz::NpyFile<R>) -> Result<Array> {
    let shape: Vec<usize> = file.shape().iter().map(|&d| d as usize).collect();
    let order = file.order();
    let descr = file.dtype().descr();
    let (tc, size) = match file.dtype() {
        npyz::DType::Plain(t) => (t.type_char(), t.size_field()),
        _ => {
            return Err(io_err(
                func,
                path,
                format!("structured dtype {descr} is not supported"),
            ))
        }
    };
    let err = |e: std::io::Error| io_err(func, path, e);
    let range = |what: &str| {
        io_err(
            func,
            path,
            format!("a {descr} value {what} does not fit 32 bits"),
        )
    };
    // The data in file order: C order, or Fortran (then the shape is reversed and the
    // array transposed back, a view).
    let file_shape: Vec<usize> = match order {
        Order::C => shape.clone(),
        Order::Fortran => shape.iter().rev().copied().collect(),
    };
    // The header's shape sizes everything that follows: check it before reading (a
    // hostile or corrupt header must not size a host vector the device could never hold).
    let n = crate::shape::checked_size(func, &shape)?;
    let dtype = match (tc, size) {
        (TypeChar::Float, 2) | (TypeChar::RawData, 2) => DType::Float16,
        (TypeChar::Float, _) => DType::Float32,
        (TypeChar::Int | TypeChar::Uint, 1) => DType::Int8,
        (TypeChar::Int | TypeChar::Uint, 2) => DType::Int16,
        _ => DType::Int32,
    };
    let bytes = (n as u64).checked_mul(dtype.storage_bytes() as u64);
    crate::array::current_device()?.check_fits(bytes, func, &shape, dtype)?;
    let a = match (tc, size) {
        (TypeChar::Bool, 1) => {
            Array::from_slice(&file.into_vec::<bool>().map_err(err)?, &file_shape)?
        }
        (TypeChar::Int, 1) => Array::from_slice(&file.into_vec::<i8>().map_err(err)?, &file_shape)?,
        (TypeChar::Int, 2) => {
            Array::from_slice(&file.into_vec::<i16>().map_err(err)?, &file_shape)?
        }
        (TypeChar::Int, 4) => {
            Array::from_slice(&file.into_vec::<i32>().map_err(err)?, &file_shape)?
        }
        (TypeChar::Int, 8) => {
            let v = file.into_vec::<i64>().map_err(err)?;
            let w: Vec<i32> = v
                .iter()
                .map(|&x| i32::try_from(x).map_err(|_| range(&x.to_string())))
                .collect::<Result<_>>()?;
            Array::from_slice(&w, &file_shape)?
        }
        (TypeChar::Uint, 1) => {
            Array::from_slice(&file.into_vec::<u8>().map_err(err)?, &file_shape)?
        }
        (TypeChar::Uint, 2) => {
            Array::from_slice(&file.into_vec::<u16>().map_err(err)?, &file_shape)?
        }
        (TypeChar::RawData, 2) => {
            let v: Vec<bf16> = file
                .into_vec::<npyz::FixedSizeBytes<2>>()
                .map_err(err)?
                .into_iter()
                .map(|b| bf16::from_le_bytes(b.0))
                .collect();
            Array::from_slice(&v, &file_shape)?
        }
        (TypeChar::Uint, 4) => {
            Array::from_slice(&file.into_vec::<u32>().map_err(err)?, &file_shape)?
        }
        (TypeChar::Uint, 8) => {
            let v = file.into_vec::<u64>().map_err(err)?;
            let w: Vec<u32> = v
                .iter()
                .map(|&x| u32::try_from(x).map_err(|_| range(&x.to_string())))
                .collect::<Result<_>>()?;
            Array::from_slice(&w, &file_shape)?
        }
        (TypeChar::Float, 2) => {
            Array::from_slice(&file.into_vec::<f16>().map_err(err)?, &file_shape)?
        }
        (TypeChar::Float, 4) => {
            Array::from_slice(&file.into_vec::<f32>().map_err(err)?, &file_shape)?
        }
        (TypeChar::Float, 8) => {
            let v: Vec<f32> = file
                .into_vec::<f64>()
                .map_err(err)?
                .iter()
                .map(|&x| x as f32)
                .collect();
            Array::from_slice(&v, &file_shape)?
        }
        _ => {
            return Err(io_err(
                func,
                path,
                format!("dtype {descr} is not supported (Olympus reads bool, integers and floats)"),
            ))
        }
    };
    match order {
        Order::C => Ok(a),
        Order::Fortran => {
            let perm: Vec<usize> = (0..shape.len()).rev().collect();
            crate::lax::transpose(&a, &perm)
        }
    }
}

/// Loads an array from a NumPy `.npy` file (any byte order, C or Fortran order; NumPy's
/// 64-bit and small integer and float dtypes are converted as JAX canonicalises them).
/// Errors name the file: missing, truncated, not a `.npy`, or an unsupported dtype.
///
/// ```
/// use olympus::numpy as np;
/// let path = std::env::temp_dir().join("olympus_doc_load.npy");
/// np::save(&path, np::arange(4)?)?;
/// assert_eq!(np::load(&path)?.to_vec::<i32>()?, vec![0, 1, 2, 3]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn load(path: impl AsRef<Path>) -> Result<Array> {
    let path = path.as_ref();
    let f = std::fs::File::open(path).map_err(|e| io_err("load", path, e))?;
    let stream = checked_stream("load", path, std::io::BufReader::new(f))?;
    let file = npyz::NpyFile::new(stream).map_err(|e| {
        let reason = match declared_descr(path) {
            Some(d) => {
                format!("dtype {d} is not supported (Olympus reads bool, integers and floats): {e}")
            }
            None => format!("not a valid .npy file ({e})"),
        };
        io_err("load", path, reason)
    })?;
    read_npy("load", path, file)
}

/// The stream whole again after reading its `.npy` header and checking the shape it
/// declares: a corrupt or hostile header must neither overflow the element count (the
/// reader multiplies without checking) nor size a host vector no device could hold.
/// Streams that are not `.npy` pass through for the reader to reject.
fn checked_stream<R: Read>(
    func: &str,
    path: &Path,
    mut r: R,
) -> Result<std::io::Chain<std::io::Cursor<Vec<u8>>, R>> {
    let err = |e: std::io::Error| io_err(func, path, e);
    let bad = |reason: String| io_err(func, path, reason);
    let mut head = Vec::new();
    r.by_ref().take(8).read_to_end(&mut head).map_err(err)?;
    if head.len() < 8 || !head.starts_with(b"\x93NUMPY") {
        return Ok(std::io::Cursor::new(head).chain(r));
    }
    let len_bytes = if head[6] == 1 { 2 } else { 4 };
    let mut len = Vec::new();
    r.by_ref()
        .take(len_bytes)
        .read_to_end(&mut len)
        .map_err(err)?;
    head.extend_from_slice(&len);
    if len.len() as u64 != len_bytes {
        return Ok(std::io::Cursor::new(head).chain(r));
    }
    let header_len = len
        .iter()
        .rev()
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
    // NumPy writes headers of a few hundred bytes; the reader allocates whatever length
    // a header declares.
    if header_len > 1 << 16 {
        return Err(bad(format!("a .npy header of {header_len} bytes")));
    }
    let mut header = Vec::new();
    r.by_ref()
        .take(header_len)
        .read_to_end(&mut header)
        .map_err(err)?;
    let text = String::from_utf8_lossy(&header).into_owned();
    head.extend_from_slice(&header);
    let dims = declared_shape(&text).ok_or_else(|| {
        bad(format!(
            "the header declares no readable shape: {}",
            text.trim()
        ))
    })?;
    // The element count, and the product with empty dimensions counted as 1 (the reader's
    // strides): neither may overflow.
    let (mut n, mut strides) = (1u64, 1u64);
    for d in &dims {
        let d: u64 = d
            .parse()
            .map_err(|_| bad(format!("the header's shape has a dimension {d}")))?;
        let overflow = || {
            bad(format!(
                "the header's shape ({}) overflows",
                dims.join(", ")
            ))
        };
        n = n.checked_mul(d).ok_or_else(overflow)?;
        strides = strides.checked_mul(d.max(1)).ok_or_else(overflow)?;
    }
    let shape: Vec<usize> = dims
        .iter()
        .map(|d| d.parse().unwrap_or(usize::MAX))
        .collect();
    // A byte an element at the least (int8): a finer check follows the header.
    crate::array::current_device()?.check_fits(Some(n), func, &shape, DType::Int8)?;
    Ok(std::io::Cursor::new(head).chain(r))
}

/// The dimensions of the `'shape': (..)` entry of a `.npy` header, as written (the last
/// such entry, as the reader's dictionary keeps; either quotes, a tuple or a list).
fn declared_shape(text: &str) -> Option<Vec<String>> {
    let key = ["'shape'", "\"shape\""]
        .iter()
        .filter_map(|k| text.rfind(k).map(|i| i + k.len()))
        .max()?;
    let rest = text[key..].trim_start().strip_prefix(':')?.trim_start();
    let close = match rest.chars().next()? {
        '(' => ')',
        '[' => ']',
        _ => return None,
    };
    let inner = &rest[1..rest.find(close)?];
    Some(
        inner
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(String::from)
            .collect(),
    )
}

/// The `descr` a `.npy` header declares, read leniently (for error messages about dtypes
/// the reader rejects, such as `|O`).
fn declared_descr(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    if !bytes.starts_with(b"\x93NUMPY") {
        return None;
    }
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]).into_owned();
    let i = text.find("'descr':")? + 8;
    let rest = text[i..].trim_start();
    let rest = rest.strip_prefix('\'')?;
    Some(rest[..rest.find('\'')?].to_string())
}

/// Loads every array of a NumPy `.npz` archive (as written by `np.savez`), by name.
pub fn load_npz(path: impl AsRef<Path>) -> Result<BTreeMap<String, Array>> {
    let path = path.as_ref();
    let mut archive = npyz::npz::NpzArchive::open(path)
        .map_err(|e| io_err("load_npz", path, format!("not a valid .npz archive ({e})")))?;
    let names: Vec<String> = archive.array_names().map(String::from).collect();
    let mut out = BTreeMap::new();
    for name in names {
        let entry = npyz::npz::file_name_from_array_name(&name);
        let raw = archive
            .zip_archive()
            .by_name(&entry)
            .map_err(|e| io_err("load_npz", path, format!("array {name}: {e}")))?;
        let stream = checked_stream("load_npz", path, raw)?;
        let file = npyz::NpyFile::new(stream)
            .map_err(|e| io_err("load_npz", path, format!("array {name}: {e}")))?;
        out.insert(name.clone(), read_npy("load_npz", path, file)?);
    }
    Ok(out)
}

/// Writes `x` to a NumPy `.npy` file (little-endian, C order; bool as NumPy's one-byte
/// bool, float16 as `<f2`, bfloat16 as the raw `<V2` NumPy saves for ml_dtypes' type),
/// byte for byte what `np.save` writes for the same array.
pub fn save(path: impl AsRef<Path>, x: impl ArrayLike) -> Result<()> {
    let path = path.as_ref();
    let x = crate::convert::to_array("save", operand("save", 1, x)?)?;
    let bytes = npy_bytes(&x)?;
    std::fs::write(path, bytes).map_err(|e| io_err("save", path, e))
}

/// The `.npy` file of `x` as NumPy's `np.save` writes it (format 1.0): the header is its
/// dict text byte for byte (`{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }`),
/// with NumPy's room for growing the first axis (21 digits), padded with spaces and a
/// newline so the data starts at a multiple of 64; then the elements in C order,
/// little-endian.
fn npy_bytes(x: &Array) -> Result<Vec<u8>> {
    let descr = match x.dtype() {
        DType::Bool => "|b1",
        DType::Int8 => "|i1",
        DType::UInt8 => "|u1",
        DType::Int16 => "<i2",
        DType::UInt16 => "<u2",
        DType::Int32 => "<i4",
        DType::UInt32 => "<u4",
        DType::BFloat16 => "<V2",
        DType::Float16 => "<f2",
        DType::Float32 => "<f4",
        // complex64's layout, which the two-word test dtype shares.
        #[cfg(test)]
        DType::TestPair => "<c8",
    };
    // Python's repr of the shape tuple: (), (5,), (3, 4).
    let shape = crate::error::fmt_shape(x.shape());
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    if let Some(first) = x.shape().first() {
        header.push_str(&" ".repeat(21usize.saturating_sub(first.to_string().len())));
    }
    // Magic (6 bytes), version (2), header length (2), then the header and its padding:
    // NumPy pads to the next multiple of 64, a whole 64 when already aligned.
    let hlen = header.len() + 1;
    let pad = 64 - (10 + hlen) % 64;
    let total = hlen + pad;
    let Ok(total16) = u16::try_from(total) else {
        return Err(Error::arg(
            "save",
            format!("a header of {total} bytes needs format 2.0 (shape {shape})"),
        ));
    };
    let mut out = Vec::with_capacity(10 + total + x.size() * x.dtype().storage_bytes());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&total16.to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend(std::iter::repeat_n(b' ', pad));
    out.push(b'\n');
    macro_rules! data {
        ($t:ty) => {
            for v in x.to_vec::<$t>()? {
                out.extend_from_slice(&v.to_le_bytes());
            }
        };
    }
    match x.dtype() {
        DType::Bool => out.extend(x.to_vec::<bool>()?.into_iter().map(u8::from)),
        DType::Int8 => data!(i8),
        DType::UInt8 => data!(u8),
        DType::Int16 => data!(i16),
        DType::UInt16 => data!(u16),
        DType::Int32 => data!(i32),
        DType::UInt32 => data!(u32),
        DType::BFloat16 => data!(bf16),
        DType::Float16 => data!(f16),
        DType::Float32 => data!(f32),
        #[cfg(test)]
        DType::TestPair => {
            for [re, im] in x.to_vec::<[f32; 2]>()? {
                out.extend_from_slice(&re.to_le_bytes());
                out.extend_from_slice(&im.to_le_bytes());
            }
        }
    }
    Ok(out)
}

/// Writes named arrays to a NumPy `.npz` archive (`np.savez`: uncompressed, one
/// `name.npy` member each, written as [`save`] writes files), which `np.load` opens as a
/// dict-like of arrays.
pub fn savez<S: AsRef<str>, A: ArrayLike>(
    path: impl AsRef<Path>,
    arrays: impl IntoIterator<Item = (S, A)>,
) -> Result<()> {
    use std::io::Write;
    let path = path.as_ref();
    let err = |e: &dyn std::fmt::Display| io_err("savez", path, e);
    let f = std::fs::File::create(path).map_err(|e| err(&e))?;
    let mut zip = npyz::zip::ZipWriter::new(f);
    for (i, (name, a)) in arrays.into_iter().enumerate() {
        let x = crate::convert::to_array("savez", operand("savez", i + 1, a)?)?;
        let opts = npyz::zip::write::FileOptions::default()
            .compression_method(npyz::zip::CompressionMethod::Stored)
            .large_file(x.size() * x.dtype().storage_bytes() >= u32::MAX as usize);
        zip.start_file(format!("{}.npy", name.as_ref()), opts)
            .map_err(|e| err(&e))?;
        zip.write_all(&npy_bytes(&x)?).map_err(|e| err(&e))?;
    }
    zip.finish().map_err(|e| err(&e))?;
    Ok(())
}
