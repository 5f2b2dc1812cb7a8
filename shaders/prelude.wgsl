// Helpers shared by every generated kernel. Conversions are written with integer code so
// that every adapter gives the same bits (WGSL leaves out-of-range pack2x16float and
// float-to-int conversions indeterminate).

fn is_nan_f32(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

// float32 -> float16 bits, round to nearest even; overflow gives inf, NaN stays NaN
// (quiet, payload truncated as the `half` crate does).
fn f32_to_f16(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    let sign = (b >> 16u) & 0x8000u;
    let a = b & 0x7fffffffu;
    if (a > 0x7f800000u) {
        return sign | 0x7e00u | ((a & 0x7fffffu) >> 13u);
    }
    if (a >= 0x477ff000u) {
        return sign | 0x7c00u;
    }
    if (a >= 0x38800000u) {
        let m = a - 0x38000000u;
        return sign | ((m + 0x0fffu + ((m >> 13u) & 1u)) >> 13u);
    }
    if (a <= 0x33000000u) {
        return sign;
    }
    let e = a >> 23u;
    let mant = (a & 0x7fffffu) | 0x800000u;
    let shift = 126u - e;
    let q = mant >> shift;
    let rem = mant & ((1u << shift) - 1u);
    let half = 1u << (shift - 1u);
    var r = q;
    if (rem > half || (rem == half && (q & 1u) == 1u)) {
        r = r + 1u;
    }
    return sign | r;
}

// float16 bits (low 16 bits of h) -> float32, exact.
fn f16_to_f32(h: u32) -> f32 {
    let sign = (h & 0x8000u) << 16u;
    let e = (h >> 10u) & 0x1fu;
    let m = h & 0x3ffu;
    if (e == 0x1fu) {
        return bitcast<f32>(sign | 0x7f800000u | (m << 13u));
    }
    if (e == 0u) {
        let v = f32(m) * 5.9604644775390625e-8;
        return select(v, -v, sign != 0u);
    }
    return bitcast<f32>(sign | ((e + 112u) << 23u) | (m << 13u));
}

fn round_f16(x: f32) -> f32 {
    return f16_to_f32(f32_to_f16(x));
}

// float -> int32 as XLA converts: truncation toward zero, saturating, NaN -> 0.
fn f32_to_i32(x: f32) -> i32 {
    if (is_nan_f32(x)) {
        return 0;
    }
    if (x >= 2147483648.0) {
        return 2147483647;
    }
    if (x <= -2147483648.0) {
        return -2147483647 - 1;
    }
    return i32(x);
}

// float -> uint32 as XLA converts: truncation toward zero, saturating, NaN -> 0.
fn f32_to_u32(x: f32) -> u32 {
    if (is_nan_f32(x) || x <= 0.0) {
        return 0u;
    }
    if (x >= 4294967296.0) {
        return 4294967295u;
    }
    return u32(x);
}

// e^x in float32 to about 1 ulp on every adapter (driver `exp` is allowed 3 + 2|x| ulp by
// Vulkan; lavapipe was off by 7 ulp at x = 15). Cephes' expf: x = k ln2 + r with ln2 split
// so k * C1 is exact, a degree-7 polynomial on |r| <= ln2/2, then scaling by 2^k.
fn exp_f32(x: f32) -> f32 {
    if (is_nan_f32(x)) {
        return x;
    }
    if (x > 88.72283935546875) {
        return bitcast<f32>(0x7f800000u);
    }
    if (x < -103.97208404541016) {
        return 0.0;
    }
    let k = floor(x * 1.44269504088896341 + 0.5);
    let r = (x - k * 0.693359375) + k * 2.12194440e-4;
    let r2 = r * r;
    let p = ((((((1.9875691500e-4 * r + 1.3981999507e-3) * r + 8.3334519073e-3) * r
        + 4.1665795894e-2) * r + 1.6666665459e-1) * r + 5.0000001201e-1) * r2 + r) + 1.0;
    let ki = i32(k);
    if (ki < -125) {
        // Subnormal results: scale in two steps so the exponent stays in range.
        return ldexp(p, ki + 64) * 5.421010862427522e-20;
    }
    if (ki > 127) {
        return ldexp(p, ki - 1) * 2.0;
    }
    return ldexp(p, ki);
}
