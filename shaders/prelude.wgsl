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
    // Branch-free (every case computed, then selected): on a SIMD software adapter the
    // branches cost more than the arithmetic. The same bits as scaling with `ldexp` in
    // branches (checked over every float32). `k` is clamped only so that the conversion
    // stays defined; the ranges past it are selected away.
    let k = floor(x * 1.44269504088896341 + 0.5);
    let r = (x - k * 0.693359375) + k * 2.12194440e-4;
    let r2 = r * r;
    let p = ((((((1.9875691500e-4 * r + 1.3981999507e-3) * r + 8.3334519073e-3) * r
        + 4.1665795894e-2) * r + 1.6666665459e-1) * r + 5.0000001201e-1) * r2 + r) + 1.0;
    let ki = i32(clamp(k, -200.0, 200.0));
    // 2^k as a float32 for normal exponents; past 127 (k = 128) doubled after; below
    // -125 (subnormal results) scaled in two steps so the exponent stays in range.
    let normal = p * bitcast<f32>(u32(clamp(ki, -126, 127) + 127) << 23u);
    let low = (p * bitcast<f32>(u32(max(ki + 64, -126) + 127) << 23u)) * 5.421010862427522e-20;
    var y = select(select(normal, normal * 2.0, ki > 127), low, ki < -125);
    y = select(y, bitcast<f32>(0x7f800000u), x > 88.72283935546875);
    y = select(y, 0.0, x < -103.97208404541016);
    return select(y, x, is_nan_f32(x));
}

fn f32_inf() -> f32 {
    return bitcast<f32>(0x7f800000u);
}

fn f32_nan() -> f32 {
    return bitcast<f32>(0x7fc00000u);
}

// x itself for finite x (+inf becomes the largest float), through an operation shader
// compilers cannot see through. WGSL cannot mark an operation exact, and compilers may
// rewrite float algebra: Mesa's NIR turns `(a + b) - a` into `b`, merges constant factors,
// and refactors `x * x2 * r - 0.5 * x2`. Error-free transforms and sequences that must
// round each operation as written need this barrier.
fn opaque_f32(x: f32) -> f32 {
    return min(x, 3.4028235e38);
}

// The rounding error of s = fl(a + b): a + b = s + two_sum_err(a, b, s) exactly (Knuth).
fn two_sum_err(a: f32, b: f32, s: f32) -> f32 {
    let s1 = opaque_f32(s);
    let bb = opaque_f32(s1 - a);
    return (a - (s1 - bb)) + (b - bb);
}

// a * b rounded on its own: GPU compilers fuse `a * b + c` into one multiply-add where
// they can, which would give a fused kernel other bits than the same ops run one by one.
// The barrier is skipped for infinite and NaN products, which `opaque_f32` would clamp.
fn mul_rn(a: f32, b: f32) -> f32 {
    let p = a * b;
    return select(p, opaque_f32(p), abs(p) <= 3.4028235e38);
}

// x = j * pi/2 + r in four parts (Cody and Waite): j * 1.5703125, j * C2 and j * C3
// (12 bits each) are exact for |j| < 2^12, and each subtraction of nearly equal values
// is exact; C4 carries the rest of pi/2 to 2^-63. Returns (r, j).
fn trig_reduce(x: f32) -> vec2<f32> {
    let j = round(x * 0.6366197466850281);
    let r = (((x - j * 1.5703125) - j * 0.0004838705062866211) - j * -4.371395334601402e-8)
        - j * 2.5633440682570896e-12;
    return vec2<f32>(r, j);
}

// sin and cos of |r| <= pi/4 (Cephes' sinf and cosf polynomials).
fn sin_poly(r: f32) -> f32 {
    let z = r * r;
    return r + r * z * ((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1);
}

fn cos_poly(r: f32) -> f32 {
    let z = r * r;
    return 1.0 - 0.5 * z + z * z * ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z
        + 4.166664568298827e-2);
}

// Our own sine, cosine and tangent: WGSL's built-ins are only specified on [-pi, pi] and
// NVIDIA's are 10-20 ulp off inside it. Within 2 ulp (tangent 4) for |x| <= 6000; past
// that the reduction is not exact and the built-in is used.
fn sin_f32(x: f32) -> f32 {
    if (abs(x) < 2.44e-4) {
        return x;
    }
    if (!(abs(x) <= 6000.0)) {
        return sin(x);
    }
    let t = trig_reduce(x);
    let q = i32(t.y) & 3;
    let v = select(sin_poly(t.x), cos_poly(t.x), (q & 1) == 1);
    return select(v, -v, q >= 2);
}

fn cos_f32(x: f32) -> f32 {
    if (abs(x) < 2.44e-4) {
        return 1.0;
    }
    if (!(abs(x) <= 6000.0)) {
        return cos(x);
    }
    let t = trig_reduce(x);
    let q = i32(t.y) & 3;
    let v = select(cos_poly(t.x), sin_poly(t.x), (q & 1) == 1);
    return select(v, -v, q == 1 || q == 2);
}

fn tan_f32(x: f32) -> f32 {
    if (abs(x) < 2.44e-4) {
        return x;
    }
    if (!(abs(x) <= 6000.0)) {
        return tan(x);
    }
    let t = trig_reduce(x);
    let s = sin_poly(t.x);
    let c = cos_poly(t.x);
    return select(div_rn(s, c), div_rn(-c, s), (i32(t.y) & 1) == 1);
}

// sqrt(x) correctly rounded, as IEEE (and XLA) give it. WGSL allows the adapter's square
// root the error of 1/inverseSqrt (NVIDIA's is a few ulp off), so its root s is corrected
// once with the exact residual x - s * s. Roots outside [1e-15, 1.8e19], whose residual
// could leave the normal range, and 0, infinities and NaN keep s. On adapters whose
// square root rounds correctly (a probe checks each adapter once) the runtime replaces
// this body with `return sqrt(x);` (`DeviceInner::exact_sqrt`).
fn sqrt_rn(x: f32) -> f32 {
    let s = sqrt(x);
    if (!(s >= 1e-15 && s <= 1.8e19)) {
        return s;
    }
    let r = fma_rn(-s, s, x);
    return fma_rn(r, div_rn(0.5, s), s);
}

// x / y correctly rounded, as IEEE division (and XLA, on CPUs and GPUs) gives it. WGSL
// allows 2.5 ulp, and NVIDIA's Vulkan driver is 1 ulp off on about one quotient in a few
// hundred, so the adapter's quotient q is corrected once with the exact residual
// x - q * y (Markstein). Quotients that are 0, infinite or NaN, and divisors whose
// reciprocal or residual could leave the normal range, keep q. On adapters whose division
// rounds correctly (a probe checks each adapter once) the runtime replaces this body with
// `return x / y;` (`DeviceInner::exact_div`).
fn div_rn(x: f32, y: f32) -> f32 {
    let q = x / y;
    let ay = abs(y);
    if (q == 0.0 || !(abs(q) <= 1.7e38) || !(ay >= 1.2e-37 && ay <= 8.5e37) || abs(x) < 1e-30) {
        return q;
    }
    let r = fma_rn(-q, y, x);
    return fma_rn(r, 1.0 / y, q);
}

// a * b + c rounded once, as IEEE fusedMultiplyAdd. WGSL's `fma` may round twice (lavapipe's
// does), so on such adapters this is Boldo and Melquiond's emulation ("Emulation of FMA and
// correctly rounded sums: proved algorithms using rounding to odd", 2008; `fma_core`), with
// the operands scaled by powers of two into the range where it is exact. Exact except
// where the result is subnormal (rounded twice) or a product is below about 1e-60 with c
// below 1e-12. On adapters whose `fma` is exact, the runtime replaces this body with it
// (`DeviceInner::exact_fma`).
fn fma_rn(a: f32, b: f32, c: f32) -> f32 {
    // An infinite or NaN product is exact, and a finite product leaves c's infinity or NaN.
    if ((bitcast<u32>(a) & 0x7f800000u) == 0x7f800000u
        || (bitcast<u32>(b) & 0x7f800000u) == 0x7f800000u) {
        return a * b + c;
    }
    if ((bitcast<u32>(c) & 0x7f800000u) == 0x7f800000u) {
        return c;
    }
    let ap = abs(a * b);
    let sa = abs(a) >= abs(b);
    if (ap > 1e30 || abs(c) > 1e30) {
        // Scale the larger factor and c by 2^-64; a c that vanishes still breaks ties.
        var cs = c * 5.421010862427522e-20;
        if (cs == 0.0 && c != 0.0) {
            cs = copysign_f32(1.17549435e-38, c);
        }
        let r = fma_core(select(a, a * 5.421010862427522e-20, sa),
            select(b * 5.421010862427522e-20, b, sa), cs);
        return r * 1.8446744073709552e19;
    }
    // A product in range with one factor over 1e30: move 2^64 from one factor to the
    // other, which leaves the product as it is.
    var x = a;
    var y = b;
    if (max(abs(a), abs(b)) > 1e30) {
        x = select(a * 1.8446744073709552e19, a * 5.421010862427522e-20, sa);
        y = select(b * 5.421010862427522e-20, b * 1.8446744073709552e19, sa);
    }
    if (ap < 1e-21) {
        // A product below 2^-69 is under half an ulp of any c from 2^-40 up.
        if (abs(c) >= 9.094947e-13) {
            return c;
        }
        // Scale the smaller factor (at most sqrt(1e-21)) and c by 2^128, in two steps
        // of 2^64 (a compiler may merge constant factors, and 2^128 is not a float32).
        let k = 1.8446744073709552e19;
        let xs = select(opaque_f32(x * k) * k, x, sa);
        let ys = select(y, opaque_f32(y * k) * k, sa);
        let r = fma_core(xs, ys, opaque_f32(c * k) * k);
        return opaque_f32(r * 5.421010862427522e-20) * 5.421010862427522e-20;
    }
    return fma_core(x, y, c);
}

// The emulation: the product as an exact sum p + pl (Dekker's split into 12-bit halves),
// c + p as an exact sum th + tl, tl + pl rounded to odd, and one final rounding. It is
// exact while no partial product underflows or overflows (1e-21 <= |a * b| <= 1e30,
// operands up to 1e30, |c| up to 1e36); outside that the adapter's `fma` is used.
fn fma_core(a: f32, b: f32, c: f32) -> f32 {
    let ap = abs(a * b);
    if (!(ap >= 1e-21 && ap <= 1e30 && abs(a) <= 1e30 && abs(b) <= 1e30 && abs(c) <= 1e36)) {
        return fma(a, b, c);
    }
    return fma_poly(a, b, c);
}

// `fma_core` without its range check, for polynomial steps whose operands are known to be
// in range, or whose product is far below c's last bit.
fn fma_poly(a: f32, b: f32, c: f32) -> f32 {
    let p = opaque_f32(a * b);
    let ta = opaque_f32(a * 4097.0);
    let ah = ta - opaque_f32(ta - a);
    let al = a - ah;
    let tb = opaque_f32(b * 4097.0);
    let bh = tb - opaque_f32(tb - b);
    let bl = b - bh;
    let pl = al * bl - (((p - ah * bh) - al * bh) - ah * bl);
    let th = c + p;
    let tl = two_sum_err(c, p, th);
    var v = tl + pl;
    let ve = two_sum_err(tl, pl, v);
    let vb = bitcast<u32>(v);
    if (ve != 0.0 && (vb & 1u) == 0u) {
        v = bitcast<f32>(select(vb - 1u, vb + 1u, (v < 0.0) == (ve < 0.0)));
    }
    return th + v;
}

fn copysign_f32(a: f32, b: f32) -> f32 {
    return bitcast<f32>((bitcast<u32>(a) & 0x7fffffffu) | (bitcast<u32>(b) & 0x80000000u));
}

// Round half to even, keeping the sign of zero (NumPy's rint).
fn rint_f32(x: f32) -> f32 {
    let f = floor(x);
    let d = x - f;
    var r = f;
    if (d > 0.5) {
        r = f + 1.0;
    } else if (!(d < 0.5)) {
        r = select(f + 1.0, f, f * 0.5 == floor(f * 0.5));
    }
    return copysign_f32(r, x);
}

// Natural log to about 1 ulp (Cephes' logf); driver `log` may be off by 2^-21 absolute
// near 1. Subnormals are scaled first; log(0) = -inf, log(<0) = NaN.
fn log_parts(x: f32) -> vec2<f32> {
    // Returns (ln of the reduced mantissa part, exponent) with x = m * 2^e.
    var b = bitcast<u32>(x);
    var e = i32((b >> 23u) & 0xffu) - 126;
    if ((b & 0x7f800000u) == 0u) {
        let s = x * 8388608.0;
        b = bitcast<u32>(s);
        e = i32((b >> 23u) & 0xffu) - 126 - 23;
    }
    var m = bitcast<f32>((b & 0x007fffffu) | 0x3f000000u);
    if (m < 0.707106781186547524) {
        e = e - 1;
        m = m + m - 1.0;
    } else {
        m = m - 1.0;
    }
    let z = m * m;
    var y = ((((((((7.0376836292e-2 * m - 1.1514610310e-1) * m + 1.1676998740e-1) * m
        - 1.2420140846e-1) * m + 1.4249322787e-1) * m - 1.6668057665e-1) * m
        + 2.0000714765e-1) * m - 2.4999993993e-1) * m + 3.3333331174e-1) * m * z;
    y = y - 0.5 * z;
    return vec2<f32>(m + y, f32(e));
}

fn log_special(x: f32) -> vec2<f32> {
    // (handled, value) for NaN, negatives, zero and infinity.
    if (is_nan_f32(x)) {
        return vec2<f32>(1.0, x);
    }
    if (x < 0.0) {
        return vec2<f32>(1.0, f32_nan());
    }
    if (x == 0.0) {
        return vec2<f32>(1.0, -f32_inf());
    }
    if (x == f32_inf()) {
        return vec2<f32>(1.0, x);
    }
    return vec2<f32>(0.0, 0.0);
}

// Flushes a subnormal to a zero of its sign (XLA's CPU backend runs with FTZ and DAZ).
fn ftz_f32(x: f32) -> f32 {
    let b = bitcast<u32>(x);
    return select(x, bitcast<f32>(b & 0x80000000u), (b & 0x7f800000u) == 0u);
}

// Natural log, bit for bit as XLA's CPU backend computes float32 `log` (JAX on an x86-64
// host with FMA; the exact operation sequence, which multiply-adds are fused and why, is
// in docs/xla-cpu-log-erfinv.md). Cephes' logf polynomial, within 1 ulp. As in JAX on
// CPU, a subnormal input reads as zero (log gives -inf); log(<0) = NaN.
fn log_f32(v0: f32) -> f32 {
    let v = ftz_f32(v0);
    let m = max(v, 1.17549435e-38);
    let bits = bitcast<u32>(m);
    let mt = bitcast<f32>((bits & 0x807fffffu) | 0x3f000000u);
    let lt = mt < bitcast<f32>(0x3f3504f3u);
    let e = (f32(i32(bits >> 23u) - 127) + 1.0) - select(0.0, 1.0, lt);
    let x = (mt + -1.0) + select(0.0, mt, lt);
    let x2 = x * x;
    let x3 = x2 * x;
    let p1 = fma_poly(fma_poly(x, bitcast<f32>(0x3d9021bbu), bitcast<f32>(0xbdebd1b8u)), x,
        bitcast<f32>(0x3def251au));
    let p2 = fma_poly(fma_poly(x, bitcast<f32>(0xbdfe5d4fu), bitcast<f32>(0x3e11e9bfu)), x,
        bitcast<f32>(0xbe2aae50u));
    let p3 = fma_poly(fma_poly(x, bitcast<f32>(0x3e4cceacu), bitcast<f32>(0xbe7ffffcu)), x,
        bitcast<f32>(0x3eaaaaaau));
    let q = fma_poly(fma_poly(p1, x3, p2), x3, p3);
    // -0.5 * x2 and 0.693359375 * e are exact, so these two multiply-adds need no fma.
    let a = x - 0.5 * x2;
    let b = fma_poly(x3, q, opaque_f32(e * bitcast<f32>(0xb95e8083u)));
    let r = 0.693359375 * e + (a + b);
    if (is_nan_f32(v) || v < 0.0) {
        return f32_nan();
    }
    if (v == 0.0) {
        return -f32_inf();
    }
    if (v == f32_inf()) {
        return v;
    }
    return r;
}

fn log2_f32(x: f32) -> f32 {
    let s = log_special(x);
    if (s.x != 0.0) {
        return s.y;
    }
    let p = log_parts(x);
    return p.x * 1.44269504088896341 + p.y;
}

fn log10_f32(x: f32) -> f32 {
    let s = log_special(x);
    if (s.x != 0.0) {
        return s.y;
    }
    let p = log_parts(x);
    // Cephes' split constants: log10(e) = L10EA + L10EB, log10(2) = L102A + L102B.
    return ((p.x * 7.00731903251827651e-4 + p.y * 2.48745663981195214e-4) + p.x * 4.3359375e-1)
        + p.y * 3.0078125e-1;
}

// 2^x: split into an integer and a fraction so the reduction is exact.
fn exp2_f32(x: f32) -> f32 {
    if (is_nan_f32(x)) {
        return x;
    }
    if (x >= 128.0) {
        return f32_inf();
    }
    if (x < -150.0) {
        return 0.0;
    }
    let k = floor(x + 0.5);
    let f = x - k;
    let p = exp_f32(f * 0.693147180559945309);
    let ki = i32(k);
    if (ki < -125) {
        return ldexp(p, ki + 64) * 5.421010862427522e-20;
    }
    if (ki > 127) {
        return ldexp(p, ki - 1) * 2.0;
    }
    return ldexp(p, ki);
}

// e^x - 1, accurate near 0 (Kahan's trick).
fn expm1_f32(x: f32) -> f32 {
    if (abs(x) < 1e-5) {
        return x + 0.5 * x * x;
    }
    let u = exp_f32(x);
    if (u == f32_inf() || is_nan_f32(x)) {
        return u;
    }
    if (u == 1.0) {
        return x;
    }
    let um1 = u - 1.0;
    if (um1 == -1.0) {
        return -1.0;
    }
    return div_rn(um1 * x, log_f32(u));
}

// ln(1 + x), bit for bit as XLA's CPU backend computes float32 `log1p` (see `log_f32`):
// Cephes' rational approximation for |x| < 0.41421357, log(1 + x) beyond.
fn log1p_f32(x0: f32) -> f32 {
    let x = ftz_f32(x0);
    if (abs(x) < bitcast<f32>(0x3ed413cdu)) {
        let x2 = x * x;
        var q = 1.0;
        q = fma_poly(q, x, bitcast<f32>(0x417101adu));
        q = fma_poly(q, x, bitcast<f32>(0x42a6185bu));
        q = fma_poly(q, x, bitcast<f32>(0x435dc32du));
        q = fma_poly(q, x, bitcast<f32>(0x439a8ca3u));
        q = fma_poly(q, x, bitcast<f32>(0x43586d8au));
        q = fma_poly(q, x, bitcast<f32>(0x42707982u));
        var p = bitcast<f32>(0x383de04bu);
        p = fma_poly(p, x, bitcast<f32>(0x3eff40c5u));
        p = fma_poly(p, x, bitcast<f32>(0x40d284fau));
        p = fma_poly(p, x, bitcast<f32>(0x41ef4b9cu));
        p = fma_poly(p, x, bitcast<f32>(0x4273cc76u));
        p = fma_poly(p, x, bitcast<f32>(0x426473adu));
        p = fma_poly(p, x, bitcast<f32>(0x41a05101u));
        let t = opaque_f32((x * x2) * div_rn(p, q)) - 0.5 * x2;
        return ftz_f32(x + t);
    }
    return log_f32(x + 1.0);
}

fn cbrt_f32(x: f32) -> f32 {
    let a = abs(x);
    if (a == 0.0 || a == f32_inf() || is_nan_f32(x)) {
        return x;
    }
    var y = exp2_f32(div_rn(log2_f32(a), 3.0));
    y = y - div_rn(y * y * y - a, 3.0 * y * y);
    return copysign_f32(y, x);
}

fn sinh_f32(x: f32) -> f32 {
    let a = abs(x);
    if (a > 88.0) {
        return copysign_f32(exp_f32(a - 0.693147180559945309), x);
    }
    let e = expm1_f32(a);
    return copysign_f32(0.5 * (e + div_rn(e, e + 1.0)), x);
}

fn cosh_f32(x: f32) -> f32 {
    let a = abs(x);
    if (a > 88.0) {
        return exp_f32(a - 0.693147180559945309);
    }
    let e = exp_f32(a);
    return 0.5 * (e + div_rn(1.0, e));
}

fn tanh_f32(x: f32) -> f32 {
    let a = abs(x);
    if (is_nan_f32(x)) {
        return x;
    }
    if (a > 9.1) {
        return copysign_f32(1.0, x);
    }
    let e = expm1_f32(2.0 * a);
    return copysign_f32(div_rn(e, e + 2.0), x);
}

fn asinh_f32(x: f32) -> f32 {
    let a = abs(x);
    if (a > 1e18 || is_nan_f32(x)) {
        return copysign_f32(log_f32(a) + 0.693147180559945309, x);
    }
    let a2 = a * a;
    return copysign_f32(log1p_f32(a + div_rn(a2, 1.0 + sqrt_rn(1.0 + a2))), x);
}

fn acosh_f32(x: f32) -> f32 {
    if (x < 1.0) {
        return f32_nan();
    }
    if (x > 1e18) {
        return log_f32(x) + 0.693147180559945309;
    }
    let t = x - 1.0;
    return log1p_f32(t + sqrt_rn(2.0 * t + t * t));
}

fn atanh_f32(x: f32) -> f32 {
    let a = abs(x);
    if (a > 1.0) {
        return f32_nan();
    }
    return copysign_f32(0.5 * log1p_f32(div_rn(2.0 * a, 1.0 - a)), x);
}

// C's fmod, exact (musl's fmodf on the bits; WGSL's % is x - y * trunc(x / y)).
fn fmod_f32(x: f32, y: f32) -> f32 {
    var uxi = bitcast<u32>(x);
    var uyi = bitcast<u32>(y);
    var ex = i32((uxi >> 23u) & 0xffu);
    var ey = i32((uyi >> 23u) & 0xffu);
    let sx = uxi & 0x80000000u;
    if ((uyi << 1u) == 0u || is_nan_f32(y) || ex == 0xff) {
        return f32_nan();
    }
    if ((uxi << 1u) <= (uyi << 1u)) {
        if ((uxi << 1u) == (uyi << 1u)) {
            return bitcast<f32>(sx);
        }
        return x;
    }
    if (ex == 0) {
        var i = uxi << 9u;
        while ((i >> 31u) == 0u) {
            ex = ex - 1;
            i = i << 1u;
        }
        uxi = uxi << u32(-ex + 1);
    } else {
        uxi = (uxi & 0x007fffffu) | 0x00800000u;
    }
    if (ey == 0) {
        var i = uyi << 9u;
        while ((i >> 31u) == 0u) {
            ey = ey - 1;
            i = i << 1u;
        }
        uyi = uyi << u32(-ey + 1);
    } else {
        uyi = (uyi & 0x007fffffu) | 0x00800000u;
    }
    while (ex > ey) {
        let i = uxi - uyi;
        if ((i >> 31u) == 0u) {
            if (i == 0u) {
                return bitcast<f32>(sx);
            }
            uxi = i;
        }
        uxi = uxi << 1u;
        ex = ex - 1;
    }
    let i = uxi - uyi;
    if ((i >> 31u) == 0u) {
        if (i == 0u) {
            return bitcast<f32>(sx);
        }
        uxi = i;
    }
    while ((uxi >> 23u) == 0u) {
        uxi = uxi << 1u;
        ex = ex - 1;
    }
    if (ex > 0) {
        uxi = (uxi - 0x00800000u) | (u32(ex) << 23u);
    } else {
        uxi = uxi >> u32(-ex + 1);
    }
    return bitcast<f32>(uxi | sx);
}

// NumPy's remainder for floats (sign of the divisor), as JAX computes it.
fn rem_f32(a: f32, b: f32) -> f32 {
    var m = fmod_f32(a, b);
    if (m != 0.0 && !is_nan_f32(m) && ((m < 0.0) != (b < 0.0))) {
        m = m + b;
    }
    return m;
}

// NumPy's floor_divide for floats, as JAX computes it (division by zero gives a / b).
fn floordiv_f32(a: f32, b: f32) -> f32 {
    if (b == 0.0) {
        return div_rn(a, b);
    }
    let m = fmod_f32(a, b);
    var d = div_rn(a - m, b);
    if (m != 0.0 && !is_nan_f32(m) && ((m < 0.0) != (b < 0.0))) {
        d = d - 1.0;
    }
    return rint_f32(d);
}

fn floordiv_i32(a: i32, b: i32) -> i32 {
    if (b == 0) {
        return select(-2, -1, a == 0);
    }
    if (a == (-2147483647 - 1) && b == -1) {
        return a;
    }
    let q = a / b;
    let r = a - q * b;
    return select(q, q - 1, r != 0 && ((r < 0) != (b < 0)));
}

fn rem_i32(a: i32, b: i32) -> i32 {
    let r = fmod_i32(a, b);
    return select(r, r + b, r != 0 && ((r < 0) != (b < 0)));
}

// C's remainder (the sign of a), from the magnitudes in u32 (where |i32 min| is 2^31):
// GLSL leaves a signed `%` of negative operands undefined, and naga's GLSL output kept
// llvmpipe's answer (fmod(1, -1) gave 1).
fn fmod_i32(a: i32, b: i32) -> i32 {
    if (b == 0) {
        return 0;
    }
    let r = i32(u32(abs(a)) % u32(abs(b)));
    return select(r, -r, a < 0);
}

fn pow_u32(a: u32, b: u32) -> u32 {
    var acc = 1u;
    var base = a;
    var e = b;
    while (e != 0u) {
        if ((e & 1u) == 1u) {
            acc = acc * base;
        }
        base = base * base;
        e = e >> 1u;
    }
    return acc;
}

fn pow_i32(a: i32, b: i32) -> i32 {
    if (b < 0) {
        if (a == 1) {
            return 1;
        }
        if (a == -1) {
            return select(1, -1, (b & 1) == 1);
        }
        return 0;
    }
    return bitcast<i32>(pow_u32(bitcast<u32>(a), u32(b)));
}

fn is_int_f32(y: f32) -> bool {
    return floor(y) == y && abs(y) != f32_inf();
}

fn is_odd_f32(y: f32) -> bool {
    return is_int_f32(y) && abs(y) < 16777216.0 && floor(y * 0.5) != y * 0.5;
}

// C's pow special cases, then 2^(y log2 |x|).
fn pow_f32(x: f32, y: f32) -> f32 {
    if (y == 0.0 || x == 1.0) {
        return 1.0;
    }
    if (is_nan_f32(x) || is_nan_f32(y)) {
        return f32_nan();
    }
    let ax = abs(x);
    if (abs(y) == f32_inf()) {
        if (ax == 1.0) {
            return 1.0;
        }
        return select(0.0, f32_inf(), (ax > 1.0) == (y > 0.0));
    }
    let odd = is_odd_f32(y);
    if (ax == 0.0) {
        let r = select(0.0, f32_inf(), y < 0.0);
        return select(r, copysign_f32(r, x), odd);
    }
    if (ax == f32_inf()) {
        let r = select(0.0, f32_inf(), y > 0.0);
        return select(r, copysign_f32(r, x), odd && x < 0.0);
    }
    if (x < 0.0 && !is_int_f32(y)) {
        return f32_nan();
    }
    // Squares, cubes, fourth powers and square roots by multiplication and sqrt: correctly
    // rounded for squares and roots, within 1.5 ulp otherwise, where exp2(y * log2(x)) in
    // float32 is several ulp off (15 on NVIDIA, whose compiler fuses its steps).
    if (y == 2.0 || y == 3.0 || y == 4.0 || y == 0.5) {
        let x2 = ax * ax;
        var m = select(x2 * ax, x2, y == 2.0);
        m = select(m, x2 * x2, y == 4.0);
        m = select(m, sqrt_rn(ax), y == 0.5);
        return select(m, -m, x < 0.0 && odd);
    }
    let r = exp2_f32(y * log2_f32(ax));
    return select(r, -r, x < 0.0 && odd);
}

fn hypot_f32(a: f32, b: f32) -> f32 {
    let x = abs(a);
    let y = abs(b);
    if (x == f32_inf() || y == f32_inf()) {
        return f32_inf();
    }
    if (is_nan_f32(x) || is_nan_f32(y)) {
        return f32_nan();
    }
    let hi = max(x, y);
    let lo = min(x, y);
    if (hi == 0.0) {
        return 0.0;
    }
    let r = div_rn(lo, hi);
    return hi * sqrt_rn(1.0 + r * r);
}

fn nan_max_f32(a: f32, b: f32) -> f32 {
    return select(select(max(a, b), b, is_nan_f32(b)), a, is_nan_f32(a));
}

fn nan_min_f32(a: f32, b: f32) -> f32 {
    return select(select(min(a, b), b, is_nan_f32(b)), a, is_nan_f32(a));
}

fn logaddexp_f32(a: f32, b: f32) -> f32 {
    let d = a - b;
    if (is_nan_f32(d)) {
        return a + b;
    }
    return nan_max_f32(a, b) + log1p_f32(exp_f32(-abs(d)));
}

fn logaddexp2_f32(a: f32, b: f32) -> f32 {
    let d = a - b;
    if (is_nan_f32(d)) {
        return a + b;
    }
    return nan_max_f32(a, b) + opaque_f32(log1p_f32(exp2_f32(-abs(d))) * 1.44269504088896341);
}

fn gcd_u32(a: u32, b: u32) -> u32 {
    var x = a;
    var y = b;
    while (y != 0u) {
        let t = x % y;
        x = y;
        y = t;
    }
    return x;
}

fn abs_bits_i32(a: i32) -> u32 {
    return select(bitcast<u32>(a), 0u - bitcast<u32>(a), a < 0);
}

fn gcd_i32(a: i32, b: i32) -> i32 {
    return bitcast<i32>(gcd_u32(abs_bits_i32(a), abs_bits_i32(b)));
}

fn lcm_i32(a: i32, b: i32) -> i32 {
    let g = gcd_i32(a, b);
    if (g == 0) {
        return 0;
    }
    return abs(a * (b / g));
}

fn lcm_u32(a: u32, b: u32) -> u32 {
    let g = gcd_u32(a, b);
    if (g == 0u) {
        return 0u;
    }
    return a * (b / g);
}

// Inverse trigonometric functions after Cephes (lavapipe's asin was off by over 1000 ulp
// and its atan2 by about 50).
fn atan_f32(x0: f32) -> f32 {
    var x = abs(x0);
    var y = 0.0;
    if (x > 2.414213562373095) {
        y = 1.5707963267948966;
        x = div_rn(-1.0, x);
    } else if (x > 0.4142135623730950) {
        y = 0.7853981633974483;
        x = div_rn(x - 1.0, x + 1.0);
    }
    let z = x * x;
    y = y + ((((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z
        - 3.33329491539e-1) * z * x + x);
    if (is_nan_f32(x0)) {
        return x0;
    }
    return copysign_f32(y, x0);
}

fn asin_f32(x0: f32) -> f32 {
    let a = abs(x0);
    if (a > 1.0 || is_nan_f32(x0)) {
        return f32_nan();
    }
    var x = a;
    var z = x * x;
    let big = a > 0.5;
    if (big) {
        z = 0.5 * (1.0 - a);
        x = sqrt_rn(z);
    }
    var r = ((((4.2163199048e-2 * z + 2.4181311049e-2) * z + 4.5470025998e-2) * z
        + 7.4953002686e-2) * z + 1.6666752422e-1) * z * x + x;
    if (big) {
        r = 1.5707963267948966 - (r + r);
    }
    return copysign_f32(r, x0);
}

fn acos_f32(x: f32) -> f32 {
    if (abs(x) > 1.0 || is_nan_f32(x)) {
        return f32_nan();
    }
    if (x < -0.5) {
        return 3.141592653589793 - 2.0 * asin_f32(sqrt_rn(0.5 * (1.0 + x)));
    }
    if (x > 0.5) {
        return 2.0 * asin_f32(sqrt_rn(0.5 * (1.0 - x)));
    }
    return 1.5707963267948966 - asin_f32(x);
}

fn atan2_f32(y: f32, x: f32) -> f32 {
    if (is_nan_f32(x) || is_nan_f32(y)) {
        return f32_nan();
    }
    let pi = 3.141592653589793;
    let xneg = (bitcast<u32>(x) >> 31u) != 0u;
    if (y == 0.0) {
        // atan2(±0, +x) = ±0; atan2(±0, -x) = ±π (signed zeros included).
        return select(y, copysign_f32(pi, y), xneg);
    }
    if (x == 0.0) {
        return copysign_f32(1.5707963267948966, y);
    }
    let xinf = abs(x) == f32_inf();
    let yinf = abs(y) == f32_inf();
    if (xinf && yinf) {
        return copysign_f32(select(0.7853981633974483, 2.356194490192345, xneg), y);
    }
    if (xinf) {
        return copysign_f32(select(0.0, pi, xneg), y);
    }
    if (yinf) {
        return copysign_f32(1.5707963267948966, y);
    }
    let z = atan_f32(div_rn(y, x));
    if (!xneg) {
        return z;
    }
    return select(z - pi, z + pi, y > 0.0);
}

// Threefry-2x32 with 20 rounds (Salmon et al., Random123), as JAX's threefry2x32_p:
// key (k0, k1), counter (c0, c1) -> two words.
fn threefry2x32(k0: u32, k1: u32, c0: u32, c1: u32) -> vec2<u32> {
    let k2 = k0 ^ k1 ^ 0x1BD11BDAu;
    var x0 = c0 + k0;
    var x1 = c1 + k1;
    x0 = x0 + x1; x1 = ((x1 << 13u) | (x1 >> 19u)) ^ x0;
    x0 = x0 + x1; x1 = ((x1 << 15u) | (x1 >> 17u)) ^ x0;
    x0 = x0 + x1; x1 = ((x1 << 26u) | (x1 >> 6u)) ^ x0;
    x0 = x0 + x1; x1 = ((x1 << 6u) | (x1 >> 26u)) ^ x0;
    x0 = x0 + k1; x1 = x1 + k2 + 1u;
    x0 = x0 + x1; x1 = ((x1 << 17u) | (x1 >> 15u)) ^ x0;
    x0 = x0 + x1; x1 = ((x1 << 29u) | (x1 >> 3u)) ^ x0;
    x0 = x0 + x1; x1 = ((x1 << 16u) | (x1 >> 16u)) ^ x0;
    x0 = x0 + x1; x1 = ((x1 << 24u) | (x1 >> 8u)) ^ x0;
    x0 = x0 + k2; x1 = x1 + k0 + 2u;
    x0 = x0 + x1; x1 = ((x1 << 13u) | (x1 >> 19u)) ^ x0;
    x0 = x0 + x1; x1 = ((x1 << 15u) | (x1 >> 17u)) ^ x0;
    x0 = x0 + x1; x1 = ((x1 << 26u) | (x1 >> 6u)) ^ x0;
    x0 = x0 + x1; x1 = ((x1 << 6u) | (x1 >> 26u)) ^ x0;
    x0 = x0 + k0; x1 = x1 + k1 + 3u;
    x0 = x0 + x1; x1 = ((x1 << 17u) | (x1 >> 15u)) ^ x0;
    x0 = x0 + x1; x1 = ((x1 << 29u) | (x1 >> 3u)) ^ x0;
    x0 = x0 + x1; x1 = ((x1 << 16u) | (x1 >> 16u)) ^ x0;
    x0 = x0 + x1; x1 = ((x1 << 24u) | (x1 >> 8u)) ^ x0;
    x0 = x0 + k1; x1 = x1 + k2 + 4u;
    x0 = x0 + x1; x1 = ((x1 << 13u) | (x1 >> 19u)) ^ x0;
    x0 = x0 + x1; x1 = ((x1 << 15u) | (x1 >> 17u)) ^ x0;
    x0 = x0 + x1; x1 = ((x1 << 26u) | (x1 >> 6u)) ^ x0;
    x0 = x0 + x1; x1 = ((x1 << 6u) | (x1 >> 26u)) ^ x0;
    x0 = x0 + k2; x1 = x1 + k0 + 5u;
    return vec2<u32>(x0, x1);
}

// The inverse error function, bit for bit as XLA's CPU backend computes float32 `erf_inv`
// (Giles' approximation on XLA's log1p; see `log_f32`).
fn erf_inv_f32(x0: f32) -> f32 {
    let x = ftz_f32(x0);
    let lp = log1p_f32(ftz_f32(x * -x));
    // One Horner chain with each coefficient chosen per element, as XLA does (a SIMD
    // software adapter would run both chains otherwise).
    let w5 = lp > -5.0;
    let z = select(sqrt_rn(-lp) + -3.0, -2.5 - lp, w5);
    var p = select(bitcast<f32>(0xb951f09bu), bitcast<f32>(0x32f16588u), w5);
    p = fma_poly(z, p, select(bitcast<f32>(0x38d3b56bu), bitcast<f32>(0x34b84b36u), w5));
    p = fma_poly(z, p, select(bitcast<f32>(0x3ab0dc72u), bitcast<f32>(0xb66c7357u), w5));
    p = fma_poly(z, p, select(bitcast<f32>(0xbb70bde7u), bitcast<f32>(0xb6935ac1u), w5));
    p = fma_poly(z, p, select(bitcast<f32>(0x3bbc127bu), bitcast<f32>(0x396532dbu), w5));
    p = fma_poly(z, p, select(bitcast<f32>(0xbbf9c5d7u), bitcast<f32>(0xbaa45408u), w5));
    p = fma_poly(z, p, select(bitcast<f32>(0x3c1aa57eu), bitcast<f32>(0xbb88e4efu), w5));
    p = fma_poly(z, p, select(bitcast<f32>(0x3f8036dbu), bitcast<f32>(0x3e7c8f63u), w5));
    p = fma_poly(z, p, select(bitcast<f32>(0x40354f7eu), bitcast<f32>(0x3fc02e2fu), w5));
    if (abs(x) == 1.0) {
        p = f32_inf();
    }
    return ftz_f32(x * p);
}

fn threefry_xor(v: vec2<u32>) -> u32 {
    return v.x ^ v.y;
}
