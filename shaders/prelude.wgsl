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

// The float16 bits of a float32 that holds a float16 value exactly (as f16_to_f32 gives
// it), NaN payloads and signalling NaNs kept: what a bitcast reads, where a conversion
// would quiet the NaN.
fn f16_bits(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    if ((b & 0x7fffffffu) > 0x7f800000u) {
        return ((b >> 16u) & 0x8000u) | 0x7c00u | ((b & 0x7fffffu) >> 13u);
    }
    return f32_to_f16(x);
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

// float32 -> bfloat16 bits as XLA rounds: to nearest even (past the largest finite value
// to infinity); NaN stays NaN, quiet, with its sign.
fn f32_to_bf16(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    if ((b & 0x7fffffffu) > 0x7f800000u) {
        return ((b >> 16u) & 0x8000u) | 0x7fc0u;
    }
    return (b + 0x7fffu + ((b >> 16u) & 1u)) >> 16u;
}

fn round_bf16(x: f32) -> f32 {
    return bitcast<f32>(f32_to_bf16(x) << 16u);
}

// An int32 wrapped to int8 / int16 (two's complement), as XLA's narrow integers wrap.
fn wrap_i8(x: i32) -> i32 {
    return (x << 24u) >> 24u;
}

fn wrap_i16(x: i32) -> i32 {
    return (x << 16u) >> 16u;
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
// is exact; C4 carries the rest of pi/2 to 2^-63. Returns (r, j, r_lo), where r_lo is the
// rounding error of the last two subtractions (r + r_lo is r to about 2^-45 of it).
fn trig_reduce(x: f32) -> vec3<f32> {
    let j = round(x * 0.6366197466850281);
    let a = (x - j * 1.5703125) - j * 0.0004838705062866211;
    // The products kept apart (a GPU compiler would fuse them into the subtractions, and
    // the two-sums below need those to round as written).
    let b = opaque_f32(j * -4.371395334601402e-8);
    let s1 = a - b;
    let c = opaque_f32(j * 2.5633440682570896e-12);
    let r = s1 - c;
    return vec3<f32>(r, j, two_sum_err(a, -b, s1) + two_sum_err(s1, -c, r));
}

// The high and low words of the 64-bit product a * b.
fn mul_wide(a: u32, b: u32) -> vec2<u32> {
    let al = a & 0xffffu;
    let ah = a >> 16u;
    let bl = b & 0xffffu;
    let bh = b >> 16u;
    let ll = al * bl;
    let lh = al * bh;
    let hl = ah * bl;
    let lo1 = ll + (lh << 16u);
    let lo = lo1 + (hl << 16u);
    let carry = select(0u, 1u, lo1 < ll) + select(0u, 1u, lo < lo1);
    return vec2<u32>(lo, ah * bh + (lh >> 16u) + (hl >> 16u) + carry);
}

// Word i of 2/pi's bits after 32 zero bits (so a window may start before the binary
// point), by selects: a private array indexed per lane is a loop over the lanes on
// llvmpipe, paid by every thread of a vector where any takes this path.
fn two_over_pi_word(i: u32) -> u32 {
    var w = select(0u, 0xa2f9836eu, i == 1u);
    w = select(w, 0x4e441529u, i == 2u);
    w = select(w, 0xfc2757d1u, i == 3u);
    w = select(w, 0xf534ddc0u, i == 4u);
    w = select(w, 0xdb629599u, i == 5u);
    w = select(w, 0x3c439041u, i == 6u);
    w = select(w, 0xfe5163abu, i == 7u);
    return w;
}

// x = j * pi/2 + r for any finite |x| (Payne and Hanek): |x| = m * 2^e with a 24-bit m, and
// x * 2/pi mod 4 is m times the 96 bits of 2/pi from bit e - 1 on (the bits before give
// multiples of 4, those after less than 2^-70), in integers (WGSL has no 64-bit type).
// The fraction, taken to the nearest j and normalized, is multiplied by pi/2 as a
// float-float. Returns (r, j, r_lo) as `trig_reduce` does.
fn trig_reduce_big(x: f32) -> vec3<f32> {
    let bits = bitcast<u32>(x) & 0x7fffffffu;
    let m = (bits & 0x7fffffu) | 0x800000u;
    // Bit e - 1 of 2/pi is bit e + 30 of the table (e = exponent - 150 >= -11 here).
    let g = (bits >> 23u) - 120u;
    let i = g >> 5u;
    let s = g & 31u;
    let d0 = two_over_pi_word(i);
    let d1 = two_over_pi_word(i + 1u);
    let d2 = two_over_pi_word(i + 2u);
    let d3 = two_over_pi_word(i + 3u);
    let w0 = (d0 << s) | select(d1 >> (32u - s), 0u, s == 0u);
    let w1 = (d1 << s) | select(d2 >> (32u - s), 0u, s == 0u);
    let w2 = (d2 << s) | select(d3 >> (32u - s), 0u, s == 0u);
    let t2 = mul_wide(m, w2);
    let t1 = mul_wide(m, w1);
    let t0 = mul_wide(m, w0);
    // p2:p1:p0: the words of m * w0:w1:w2 above its lowest, t2.x.
    let p0 = t2.y + t1.x;
    let p1a = t1.y + t0.x;
    let p1 = p1a + select(0u, 1u, p0 < t2.y);
    let p2 = t0.y + select(0u, 1u, p1a < t1.y) + select(0u, 1u, p1 < p1a);
    // m * window has its binary point at bit 94: j is bits 94-95, the fraction's top 64
    // bits below (float32 values come no closer than 2^-30 to a multiple of pi/2, so
    // over 30 bits remain after the leading zeros).
    var j = ((p2 << 2u) | (p1 >> 30u)) & 3u;
    var f1 = (p1 << 2u) | (p0 >> 30u);
    var f0 = (p0 << 2u) | (t2.x >> 30u);
    // From one half on: j + 1, and the fraction's two's complement with r negative.
    // Selects, not branches: llvmpipe runs every branch with lanes masked, and pays more
    // for the masks than for this arithmetic.
    let up = f1 >= 0x80000000u;
    j = j + select(0u, 1u, up);
    let n0 = ~f0 + 1u;
    f1 = select(f1, ~f1 + select(0u, 1u, n0 == 0u), up);
    f0 = select(f0, n0, up);
    let word = f1 == 0u;
    f1 = select(f1, f0, word);
    f0 = select(f0, 0u, word);
    let lz = min(countLeadingZeros(f1), 31u);
    f1 = (f1 << lz) | select(f0 >> (32u - lz), 0u, lz == 0u);
    f0 = f0 << lz;
    let sh = select(0u, 32u, word) + lz;
    // The fraction f1:f0 * 2^-(64 + sh) as xh + xl (24 bits each, exact), scaled by powers
    // of two built from their bits (cheaper than `ldexp` on a SIMD software adapter).
    let xh = f32(f1 >> 8u) * bitcast<f32>((103u - sh) << 23u);
    let xl = f32(((f1 & 0xffu) << 16u) | (f0 >> 16u)) * bitcast<f32>((79u - sh) << 23u);
    // (xh + xl) * (P1 + P2), pi/2 = P1 + P2.
    let ph = opaque_f32(xh * 1.5707963705062866);
    let tail = two_prod_err(xh, 1.5707963705062866, ph)
        + (xh * -4.371139000186243e-8 + xl * 1.5707963705062866);
    let mag = ph + tail;
    let rest = two_sum_err(ph, tail, mag);
    let r = select(vec2<f32>(mag, rest), vec2<f32>(-mag, -rest), up);
    let jf = f32(j & 3u);
    return select(vec3<f32>(r.x, jf, r.y), vec3<f32>(-r.x, -jf, -r.y), x < 0.0);
}

// x = j * pi/2 + r for every finite x: four-part Cody and Waite to 6000, Payne and Hanek
// past it. Both are computed and one selected (see `trig_reduce_big`).
fn trig_reduce_any(x: f32) -> vec3<f32> {
    return select(trig_reduce(x), trig_reduce_big(x), !(abs(x) <= 6000.0));
}

// sin and cos of r + rl for |r| <= pi/4 (Cephes' sinf and cosf polynomials), the small
// rl (the reduction's rounding error) added to the correction terms before the last sum.
fn sin_poly(r: f32, rl: f32) -> f32 {
    let z = r * r;
    return r + (r * z * ((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1)
        + rl * (1.0 - 0.5 * z));
}

fn cos_poly(r: f32, rl: f32) -> f32 {
    let z = r * r;
    return 1.0 - 0.5 * z + (z * z * ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z
        + 4.166664568298827e-2) - rl * r);
}

// Our own sine, cosine and tangent: WGSL's built-ins are only specified on [-pi, pi],
// NVIDIA's are 10-20 ulp off inside it, and past a few thousand the adapters differ.
// Within 2 ulp of the correctly rounded value for every finite float32; branch-free
// (tiny and non-finite arguments selected at the end), as `trig_reduce_big` explains.
fn sin_f32(x: f32) -> f32 {
    let t = trig_reduce_any(x);
    let q = i32(t.y) & 3;
    let v = select(sin_poly(t.x, t.z), cos_poly(t.x, t.z), (q & 1) == 1);
    let y = select(select(v, -v, q >= 2), x, abs(x) < 2.44e-4);
    return select(f32_nan(), y, abs(x) < f32_inf());
}

fn cos_f32(x: f32) -> f32 {
    let t = trig_reduce_any(x);
    let q = i32(t.y) & 3;
    let v = select(cos_poly(t.x, t.z), sin_poly(t.x, t.z), (q & 1) == 1);
    let y = select(select(v, -v, q == 1 || q == 2), 1.0, abs(x) < 2.44e-4);
    return select(f32_nan(), y, abs(x) < f32_inf());
}

// tan(r + r_lo) = v + v_lo: r + r^3 Q(r^2), Q of degree 6 fitted to tan's relative
// error on [0, pi/4] (0.03 ulp; Cephes' degree 5 is 0.35 ulp off), its correction and
// r_lo added before the one rounding to v; for odd j, -1/(v + v_lo) is the quotient -1/v corrected
// by one step with the exact residual of q * v. Each rounding is then made once, which
// keeps 2 ulp.
fn tan_f32(x: f32) -> f32 {
    let t = trig_reduce_any(x);
    let r = t.x;
    let z = r * r;
    let pc = r * z * ((((((0.004360605962574482 * z + 0.00012191093264846131) * z
        + 0.010809898376464844) * z + 0.021292243152856827) * z + 0.05405799299478531) * z
        + 0.13332679867744446) * z + 0.33333349227905273);
    // r_lo times the derivative, 1 + tan(r)^2.
    let v0 = r + pc;
    let corr = pc + t.z * (1.0 + v0 * v0);
    let v = r + corr;
    let vl = two_sum_err(r, corr, v);
    // The adapter's quotient (WGSL allows it 2.5 ulp): the step below corrects it.
    let q = -1.0 / v;
    let p = opaque_f32(q * v);
    let s = (1.0 + p) + two_prod_err(q, v, p);
    let y = select(select(v, q + q * (s + q * vl), (i32(t.y) & 1) == 1), x, abs(x) < 2.44e-4);
    return select(f32_nan(), y, abs(x) < f32_inf());
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
// x - q * y (Markstein). Quotients that are not normal (0, subnormal, infinite, NaN) and
// divisors whose reciprocal or residual could leave the normal range keep q. On adapters
// whose division rounds correctly (a probe checks each adapter once) the runtime replaces
// this body with `return x / y;` (`DeviceInner::exact_div`). A divisor past 2^125 scales
// both operands by 2^-4 (exact but where the quotient underflows anyway): its reciprocal
// would be subnormal, which NVIDIA flushes, so x / y came out 0 (hypot(2e38, 1.5e38) was
// 2e38).
fn div_rn(x: f32, y: f32) -> f32 {
    let big = abs(y) > 4.2e37;
    let a = select(x, x * 0.0625, big);
    let b = select(y, y * 0.0625, big);
    let q = a / b;
    let ab = abs(b);
    if (!(abs(q) >= 1.2e-38 && abs(q) <= 1.7e38) || !(ab >= 1.2e-37 && ab <= 8.5e37) || abs(a) < 1e-30) {
        return q;
    }
    let r = fma_rn(-q, b, a);
    return fma_rn(r, 1.0 / b, q);
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
// The rounding error of p = fl(a * b): a * b = p + two_prod_err(a, b, p) exactly
// (Dekker's split into 12-bit halves) while nothing underflows or overflows.
fn two_prod_err(a: f32, b: f32, p: f32) -> f32 {
    let ta = opaque_f32(a * 4097.0);
    let ah = ta - opaque_f32(ta - a);
    let al = a - ah;
    let tb = opaque_f32(b * 4097.0);
    let bh = tb - opaque_f32(tb - b);
    let bl = b - bh;
    return al * bl - (((p - ah * bh) - al * bh) - ah * bl);
}

fn fma_poly(a: f32, b: f32, c: f32) -> f32 {
    let p = opaque_f32(a * b);
    let pl = two_prod_err(a, b, p);
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
    // The float-float log2 rounded once (0.5 ulp; Cephes' ln m * log2(e) + e was 2.2).
    return log2_ff(x).x;
}

fn log10_f32(x: f32) -> f32 {
    let s = log_special(x);
    if (s.x != 0.0) {
        return s.y;
    }
    // The float-float log2 times log10(2) as a float-float, rounded once (Cephes' split
    // form was 2.5 ulp off near 1).
    let l = log2_ff(x);
    let p = opaque_f32(l.x * 0.3010300099849701);
    return p + (two_prod_err(l.x, 0.3010300099849701, p)
        + (l.x * -1.432098889475597e-8 + l.y * 0.3010300099849701));
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
    return scale_pow2(exp_f32((x - k) * 0.693147180559945309), i32(k));
}

// p * 2^k for p near 1 and -151 < k < 129, in two steps where 2^k alone is not normal.
fn scale_pow2(p: f32, ki: i32) -> f32 {
    if (ki < -125) {
        return ldexp(p, ki + 64) * 5.421010862427522e-20;
    }
    if (ki > 127) {
        return ldexp(p, ki - 1) * 2.0;
    }
    return ldexp(p, ki);
}

// log2(x) for finite x > 0 as a float-float hi + lo, to about 2^-38 of it: x = 2^e m with
// m in [sqrt(1/2), sqrt(2)), ln m = 2 atanh(s) with s = (m - 1) / (m + 1) carried as
// s + sl (|s| < 0.172, so the series to s^15 is exact to 2^-44), times log2(e) as a
// float-float, plus e. For pow, where y * log2(x) amplifies log2's error by |y|.
fn log2_ff(x0: f32) -> vec2<f32> {
    let sub = x0 < 1.17549435e-38;
    let x = select(x0, x0 * 1.8446744073709552e19, sub);
    let b = bitcast<u32>(x);
    var m = bitcast<f32>((b & 0x7fffffu) | 0x3f800000u);
    let half = m > 1.4142135;
    m = select(m, m * 0.5, half);
    let e = f32(i32(b >> 23u) - 127) + select(0.0, 1.0, half) - select(0.0, 64.0, sub);
    // f is exact (Sterbenz); d + dl = 2 + f exactly.
    let f = m - 1.0;
    let d = 2.0 + f;
    let dl = two_sum_err(2.0, f, d);
    // s + sl = f / (d + dl): the adapter's quotient, then its residual (f - s d exact).
    let s = f / d;
    let p = opaque_f32(s * d);
    let sl = ((opaque_f32(f - p) - two_prod_err(s, d, p)) - s * dl) / d;
    // 2 atanh(s) = 2s + 2s^3/3 + 2s^3 z (1/5 + z/7 + ...), z = s^2. The s^3 term is up to
    // 1% of the result, so it is a float-float too (s^2, s^3 and 2/3 with their errors),
    // and summed with 2s exactly; the rest is small enough for float32.
    let z = opaque_f32(s * s);
    let zl = two_prod_err(s, s, z) + 2.0 * s * sl;
    let c = opaque_f32(s * z);
    let cl = two_prod_err(s, z, c) + (s * zl + sl * z);
    let u = opaque_f32(c * 0.6666666865348816);
    let ul = two_prod_err(c, 0.6666666865348816, u) + (c * -1.9868214962137642e-8
        + cl * 0.6666666865348816);
    let rest = 2.0 * c * z * ((((((0.06666667 * z + 0.07692308) * z + 0.09090909) * z
        + 0.11111111) * z + 0.14285715) * z) + 0.2);
    let lh = 2.0 * s + u;
    let ll = two_sum_err(2.0 * s, u, lh) + (2.0 * sl + (ul + rest));
    let ph = opaque_f32(lh * 1.4426950216293335);
    let pl = two_prod_err(lh, 1.4426950216293335, ph)
        + (lh * 1.92596298909109e-8 + ll * 1.4426950216293335);
    let sh = e + ph;
    let sl2 = two_sum_err(e, ph, sh) + pl;
    let rh = sh + sl2;
    return vec2<f32>(rh, two_sum_err(sh, sl2, rh));
}

// |x|^y for finite x != 0 and finite y: 2^(y log2 |x|) with the product carried as a
// float-float, so the result is within about 1 ulp (a float32 product would be off by
// |y log2 x| * 2^-24 in the exponent: 15 ulp for 70000^2.0001).
fn pow_core(ax: f32, y: f32) -> f32 {
    let l = log2_ff(ax);
    let th = opaque_f32(y * l.x);
    if (!(abs(th) < 150.0)) {
        return exp2_f32(th);
    }
    let tl = two_prod_err(y, l.x, th) + y * l.y;
    let k = floor(th + 0.5);
    let f = opaque_f32(th - k) + tl;
    return scale_pow2(exp_f32(f * 0.693147180559945309), i32(k));
}

// e^x - 1, accurate near 0 (Kahan's trick).
fn expm1_f32(x: f32) -> f32 {
    // Below 0.7, x + x^2/2 + x^3 P(x), P of degree 6 fitted to expm1's relative error
    // (0.04 ulp); zeros are returned as they are (-0.0 would sum to +0.0).
    if (x == 0.0) {
        return x;
    }
    if (abs(x) < 0.7) {
        return x + (0.5 * x * x + x * x * x * ((((((2.7359028536011465e-6 * x
            + 2.5079658371396363e-5) * x + 0.00019844727648887783) * x
            + 0.0013888019602745771) * x + 0.008333321660757065) * x + 0.041666675359010696) * x
            + 0.1666666716337204));
    }
    // Past 0.7 in magnitude e^x - 1 is exact in float32 (Sterbenz where e^x is within a
    // factor 2 of 1, a spacing no finer than e^x's beyond), so only exp's ulp remains:
    // within 1.7 ulp of the result.
    return exp_f32(x) - 1.0;
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
    // One Newton step written without y^3, which overflows for a near the largest float.
    y = y - (y - div_rn(a, y * y)) * 0.3333333432674408;
    return copysign_f32(y, x);
}

// e^a / 2 for a > 88, where e^a may overflow: e^(a - C1) * e^(C1 - ln 2) with C1 =
// 0.693359375, whose subtraction from a is exact (a - ln 2 rounded would cost 60 ulp).
fn exp_half_big(a: f32) -> f32 {
    let y = exp_f32(a - 0.693359375);
    return y + y * 2.1221695488748793e-4;
}

fn sinh_f32(x: f32) -> f32 {
    let a = abs(x);
    if (a > 88.0) {
        return copysign_f32(exp_half_big(a), x);
    }
    // Below 1, x + x^3 P(x^2), P of degree 4 fitted to sinh's relative error (0.07 ulp);
    // the expm1 form below compounds its errors to 2.5 ulp there.
    if (a < 1.0) {
        let z = x * x;
        return x + x * z * ((((2.5527652880441565e-8 * z + 2.7552114261197858e-6) * z
            + 0.00019841296307276934) * z + 0.00833333283662796) * z + 0.1666666716337204);
    }
    // From 1 on, (e^a - e^-a) / 2 (1.4 ulp; the expm1 form was 2.5).
    return copysign_f32(0.5 * (exp_f32(a) - exp_f32(-a)), x);
}

fn cosh_f32(x: f32) -> f32 {
    let a = abs(x);
    if (a > 88.0) {
        return exp_half_big(a);
    }
    let e = exp_f32(a);
    return 0.5 * (e + div_rn(1.0, e));
}

fn tanh_f32(x: f32) -> f32 {
    let a = abs(x);
    // (Zeros as they are: the polynomial below would turn -0.0 into +0.0.)
    if (is_nan_f32(x) || a == 0.0) {
        return x;
    }
    if (a > 9.1) {
        return copysign_f32(1.0, x);
    }
    // Below 0.625, x + x^3 P(x^2) with P of degree 5 fitted to tanh's relative error
    // (0.05 ulp); e / (e + 2) there compounds expm1's error with the quotient's (3 ulp).
    if (a < 0.625) {
        let z = x * x;
        return x + x * z * (((((0.002138226293027401 * z - 0.008171788416802883) * z
            + 0.021698210388422012) * z - 0.053946252912282944) * z + 0.1333320140838623) * z
            - 0.3333333134651184);
    }
    let e = expm1_f32(2.0 * a);
    return copysign_f32(div_rn(e, e + 2.0), x);
}

// ln(t + tl) for t >= 1 and a small tl, rounded once: log2_ff(t) times ln 2 as
// float-floats, tl / t added to the low part.
fn ln_ff(t: f32, tl: f32) -> f32 {
    let l = log2_ff(t);
    let ph = opaque_f32(l.x * 0.6931471824645996);
    return ph + (two_prod_err(l.x, 0.6931471824645996, ph)
        + (l.x * -1.904654323148236e-9 + l.y * 0.6931471824645996) + tl / t);
}

// sqrt(q + ql) as a float-float, q > 0: the root, and the share of the residual
// q - s^2 (exact) and ql.
fn sqrt_ff(q: f32, ql: f32) -> vec2<f32> {
    let r = sqrt_rn(q);
    let p = opaque_f32(r * r);
    let rl = ((q - p) - two_prod_err(r, r, p) + ql) / (2.0 * r);
    return vec2<f32>(r, select(0.0, rl, r > 0.0));
}

// x + sqrt(x^2 + c) (c = 1 or -1) as a float-float, for 1 <= |x| <= 1e18.
fn x_plus_root(x: f32, c: f32) -> vec2<f32> {
    let p = opaque_f32(x * x);
    let q = p + c;
    let s = sqrt_ff(q, two_sum_err(p, c, q) + two_prod_err(x, x, p));
    let t = x + s.x;
    return vec2<f32>(t, two_sum_err(x, s.x, t) + s.y);
}

fn asinh_f32(x: f32) -> f32 {
    let a = abs(x);
    if (a > 1e18 || is_nan_f32(x)) {
        return copysign_f32(log_f32(a) + 0.693147180559945309, x);
    }
    // Below 1, x + x^3 P(x^2), P of degree 9 fitted to asinh's relative error (0.02 ulp);
    // zeros as they are (the sum would turn -0.0 into +0.0).
    if (a == 0.0) {
        return x;
    }
    if (a < 1.0) {
        let z = x * x;
        return x + x * z * (((((((((0.00022537018230650574 * z - 0.0015059075085446239) * z
            + 0.004750127904117107) * z - 0.009753718972206116) * z + 0.015497480519115925) * z
            - 0.021816836670041084) * z + 0.030275173485279083) * z - 0.0446307547390461) * z
            + 0.07499931007623672) * z - 0.1666666567325592);
    }
    // ln(a + sqrt(a^2 + 1)) with the argument as a float-float (XLA's log1p form is 2.7
    // ulp off).
    let t = x_plus_root(a, 1.0);
    return copysign_f32(ln_ff(t.x, t.y), x);
}

// ln(x + sqrt(x^2 - 1)) with the argument as a float-float: x^2 - 1 is exact near 1,
// where the result is small.
fn acosh_f32(x: f32) -> f32 {
    if (x < 1.0) {
        return f32_nan();
    }
    if (x > 1e18) {
        return log_f32(x) + 0.693147180559945309;
    }
    let t = x_plus_root(x, -1.0);
    return ln_ff(t.x, t.y);
}

fn atanh_f32(x: f32) -> f32 {
    let a = abs(x);
    if (a > 1.0) {
        return f32_nan();
    }
    // Below 0.5, x + x^3 P(x^2) fitted to atanh's relative error (0.05 ulp).
    if (a < 0.5) {
        let z = x * x;
        return x + x * z * (((((0.17626363039016724 * z + 0.05166133493185043) * z
            + 0.11815862357616425) * z + 0.1422366350889206) * z + 0.20002475380897522) * z
            + 0.33333301544189453);
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
    // (-1)^y for an integer y (every float past 2^24 is an even one): the general path
    // would split a y past 2^126 into halves that overflow.
    if (ax == 1.0) {
        return select(1.0, -1.0, odd);
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
    let r = pow_core(ax, y);
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

// XLA's max and min: a NaN operand gives NaN, and -0.0 orders below 0.0 (WGSL's max and
// min may return either zero). Where both operands are zeros (tested on the bits: an
// adapter that flushes subnormals compares two of them equal), the and of their bits is
// the larger and the or the smaller.
fn nan_max_f32(a: f32, b: f32) -> f32 {
    let ua = bitcast<u32>(a);
    let ub = bitcast<u32>(b);
    let m = select(max(a, b), bitcast<f32>(ua & ub), ((ua | ub) & 0x7fffffffu) == 0u);
    return select(select(m, b, is_nan_f32(b)), a, is_nan_f32(a));
}

fn nan_min_f32(a: f32, b: f32) -> f32 {
    let ua = bitcast<u32>(a);
    let ub = bitcast<u32>(b);
    let m = select(min(a, b), bitcast<f32>(ua | ub), ((ua | ub) & 0x7fffffffu) == 0u);
    return select(select(m, b, is_nan_f32(b)), a, is_nan_f32(a));
}

// log2(1 + w) for 0 <= w <= 1 as a float-float: 1 + w = u + ul exactly, log2_ff(u), and
// ul's share added to the low part.
fn log2_1p(w: f32) -> vec2<f32> {
    let u = 1.0 + w;
    let l = log2_ff(u);
    return vec2<f32>(l.x, l.y + two_sum_err(1.0, w, u) * 1.4426950408889634 / u);
}

// ln(1 + w) for 0 <= w <= 1 within an ulp: 2 atanh(s), s = w / (2 + w) <= 1/3, by its
// series to s^21 (XLA's log1p, which `log1p_f32` reproduces, is 2.2 ulp off here).
fn log1p_small(w: f32) -> f32 {
    let s = w / (2.0 + w);
    let z = s * s;
    return 2.0 * s + 2.0 * s * z * (((((((((0.04761905 * z + 0.05263158) * z + 0.05882353) * z
        + 0.06666667) * z + 0.07692308) * z + 0.09090909) * z + 0.11111111) * z + 0.14285715) * z
        + 0.2) * z + 0.33333334);
}

// log(e^a + e^b). For |a - b| < 1 and the larger argument m in [-1.38, -0.25], where the
// result can cancel to near 0 (m + C1 is exact there), it is m - h + log(2 cosh h) with h = |a - b| / 2, written
// (((m + C1) + C2) - h) + (C3 + log1p(2 sinh(h/2)^2)) with ln 2 = C1 + C2 + C3: the
// first three sums are exact where they cancel, and nearly equal arguments keep 2 ulp.
// Elsewhere m + log(1 + e^-|a - b|) with the log as a float-float, so its rounding does
// not add to the exponential's. Where the result cancels to far below m and the
// arguments are not nearly equal, the error of the exponential or of the log term (an
// ulp of it) can still be many ulp of the result: within 2^-23 of m.
fn logaddexp_f32(a: f32, b: f32) -> f32 {
    let d = a - b;
    if (is_nan_f32(d)) {
        return a + b;
    }
    let m = nan_max_f32(a, b);
    if (m == f32_inf()) {
        return m;
    }
    let h = 0.5 * abs(d);
    let sh = sinh_f32(0.5 * h);
    let near = ((opaque_f32(m + 0.693359375) + -2.1219444170128554e-4) - h)
        + (1.6465949697480609e-12 + log1p_small(2.0 * sh * sh));
    // Farther apart, m + log(1 + e^-|a - b|) with the log as a float-float.
    let l = log2_1p(exp_f32(-abs(d)));
    let ph = opaque_f32(l.x * 0.6931471824645996);
    let pl = two_prod_err(l.x, 0.6931471824645996, ph)
        + (l.x * -1.904654323148236e-9 + l.y * 0.6931471824645996);
    let sf = m + ph;
    let far = sf + (two_sum_err(m, ph, sf) + pl);
    return select(far, near, h < 0.5 && m > -1.38 && m < -0.25);
}

// log2(2^a + 2^b), as `logaddexp_f32`: for |a - b| < 1 and m in [-2, -0.5],
// ((m + 1) - h) + log2(cosh(h ln 2)) with h = |a - b| / 2, exact where it cancels.
fn logaddexp2_f32(a: f32, b: f32) -> f32 {
    let d = a - b;
    if (is_nan_f32(d)) {
        return a + b;
    }
    let m = nan_max_f32(a, b);
    if (m == f32_inf()) {
        return m;
    }
    let h = 0.5 * abs(d);
    let sh = sinh_f32(0.34657359027997264 * h);
    let near = ((m + 1.0) - h) + log1p_small(2.0 * sh * sh) * 1.44269504088896341;
    let l = log2_1p(exp2_f32(-abs(d)));
    let sf = m + l.x;
    let far = sf + (two_sum_err(m, l.x, sf) + l.y);
    return select(far, near, h < 0.5 && m >= -2.0 && m <= -0.5);
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

// JAX's lcm: |a| * (|b| / gcd), the product wrapping (lcm(2^31 - 1, 32) is -32).
fn lcm_i32(a: i32, b: i32) -> i32 {
    let x = abs(a);
    let y = abs(b);
    let g = gcd_i32(x, y);
    if (g == 0) {
        return 0;
    }
    return x * (y / g);
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
// atan on |x| <= tan(pi/8) after Cephes' reduction (pi/2 - atan(1/x), pi/4 + atan((x -
// 1)/(x + 1))), by x + x^3 P(x^2) with P of degree 4 fitted to atan's relative error
// (0.03 ulp), and pi/2 or pi/4 as a float-float added last (a float32 pi/4 alone is an
// ulp off the results near 0.4 it is added to).
fn atan_f32(x0: f32) -> f32 {
    return atan_plus(x0, 0.0);
}

// atan(x0) + c for a c much smaller than the result, added before the last rounding.
fn atan_plus(x0: f32, c: f32) -> f32 {
    var x = abs(x0);
    var hi = 0.0;
    var lo = 0.0;
    if (x > 2.414213562373095) {
        hi = 1.5707963705062866;
        lo = -4.371139006309477e-8;
        x = div_rn(-1.0, x);
    } else if (x > 0.4142135623730950) {
        hi = 0.7853981852531433;
        lo = -2.1855695031547384e-8;
        x = div_rn(x - 1.0, x + 1.0);
    }
    let z = x * x;
    let y = hi + (x + (x * z * ((((-0.0606607124209404 * z + 0.10588572174310684) * z
        - 0.1424274444580078) * z + 0.19998423755168915) * z - 0.3333331346511841)
        + (lo + select(c, -c, x0 < 0.0))));
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
    let c = ((((4.2163199048e-2 * z + 2.4181311049e-2) * z + 4.5470025998e-2) * z
        + 7.4953002686e-2) * z + 1.6666752422e-1) * z * x;
    var r = c + x;
    if (big) {
        // pi/2 - 2 (x + c) with the square root's rounding error xl (from the exact
        // residual z - x^2) and pi/2 as a float-float: pi/2_hi - 2x is exact here.
        let p = opaque_f32(x * x);
        let xl = select(0.0, ((z - p) - two_prod_err(x, x, p)) / (2.0 * x), x > 0.0);
        r = (1.5707963705062866 - 2.0 * x) - (2.0 * (c + xl) + 4.371139006309477e-8);
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
    // atan(q + ql) = atan(q) + ql / (1 + q^2), ql the quotient's rounding error (from the
    // exact residual y - q x) where nothing in it can overflow or underflow; pi as a
    // float-float. Without them the result is up to 2.8 ulp off.
    // atan2 is scale-free: bring tiny and huge pairs near 1 by a power of two, so the
    // residual below neither underflows nor overflows.
    let big = max(abs(x), abs(y));
    let k = select(select(1.0, 5.421010862427522e-20, big > 1e20), 1.8446744073709552e19,
        big < 1e-20);
    let xs = x * k;
    let ys = y * k;
    let q = div_rn(ys, xs);
    let p = opaque_f32(q * xs);
    let safe = abs(q) < 1e30 && abs(xs) < 1e30 && abs(p) > 1e-30 && abs(p) < 1e37
        && abs(q) > 1e-30;
    let ql = select(0.0, ((ys - p) - two_prod_err(q, xs, p)) / xs, safe);
    let z = atan_plus(q, ql / (1.0 + q * q));
    if (!xneg) {
        return z;
    }
    return select((z - 3.1415927410125732) + 8.742278e-8, (z + 3.1415927410125732) - 8.742278e-8,
        y > 0.0);
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
