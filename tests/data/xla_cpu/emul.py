"""Bit-exact numpy emulation of XLA:CPU (jaxlib 0.10.2, x86-64 with FMA) float32 log, log1p, erf_inv."""
import numpy as np
f32 = np.float32

def C(h):  # float32 constant from hex bits
    return np.array([h], dtype=np.uint32).view(np.float32)[0]

def _is_f32_midpoint(t):
    b = t.view(np.int64)
    return (b & ((1 << 29) - 1)) == (1 << 28)   # low 28 bits zero, bit 28 set

def fma(a, b, c, use_fma=True):
    """Single-rounding float32 a*b+c (exact: product exact in f64, TwoSum + midpoint fix-up)."""
    a = np.asarray(a, f32); b = np.asarray(b, f32); c = np.asarray(c, f32)
    if not use_fma:
        return (a * b + c).astype(f32)
    a, b, c = np.broadcast_arrays(a, b, c)
    p = a.astype(np.float64) * b.astype(np.float64)   # exact
    cd = c.astype(np.float64)
    with np.errstate(invalid='ignore', over='ignore'):
        t = p + cd
        bb = t - p
        e = (p - (t - bb)) + (cd - bb)                 # exact error of t
        fix = (e != 0) & np.isfinite(t) & _is_f32_midpoint(t)
        if fix.any():
            t = t.copy()
            t[fix] = np.nextafter(t[fix], np.where(e[fix] > 0, np.inf, -np.inf))
    return t.astype(f32)

# ---- constants (bit patterns as in the LLVM IR) ----
SQRTHF = C(0x3F3504F3)
LP = [C(0x3D9021BB), C(0xBDEBD1B8), C(0x3DEF251A),   # p1 chain
      C(0xBDFE5D4F), C(0x3E11E9BF), C(0xBE2AAE50),   # p2 chain
      C(0x3E4CCEAC), C(0xBE7FFFFC), C(0x3EAAAAAA)]   # p3 chain
LN2_HI = C(0x3F318000)   # 0.693359375
LN2_LO = C(0xB95E8083)   # -2.12194440e-4
L1P_Q = [C(x) for x in (0x417101AD, 0x42A6185B, 0x435DC32D, 0x439A8CA3, 0x43586D8A, 0x42707982)]
L1P_P = [C(x) for x in (0x3EFF40C5, 0x40D284FA, 0x41EF4B9C, 0x4273CC76, 0x426473AD, 0x41A05101)]
L1P_P0 = f32(4.527e-05)
L1P_THR = C(0x3ED413CD)  # 0.41421357 ~ sqrt(2)-1
EI_A = [C(x) for x in (0x32F16588, 0x34B84B36, 0xB66C7357, 0xB6935AC1, 0x396532DB, 0xBAA45408, 0xBB88E4EF, 0x3E7C8F63, 0x3FC02E2F)]  # w < 5
EI_B = [C(x) for x in (0xB951F09B, 0x38D3B56B, 0x3AB0DC72, 0xBB70BDE7, 0x3BBC127B, 0xBBF9C5D7, 0x3C1AA57E, 0x3F8036DB, 0x40354F7E)]  # w >= 5

def xla_log(v, F=(1,)*8):
    """F: flags for each contraction site (1 = fused multiply-add, 0 = separate mul/add)."""
    v = np.asarray(v, f32)
    m = np.maximum(v, C(0x00800000))           # denormals/<=0 clamp to FLT_MIN
    bits = m.view(np.uint32)
    ex = ((bits >> 23).astype(np.int32) - 127).astype(f32) + f32(1)
    mant = ((bits & np.uint32(0x807FFFFF)) | np.uint32(0x3F000000)).view(f32)   # in [0.5,1)
    lt = mant < SQRTHF
    ex = ex - np.where(lt, f32(1), f32(0))
    x = (mant + f32(-1)) + np.where(lt, mant, f32(0))
    x2 = x * x
    x3 = x2 * x
    p1 = fma(x, LP[0], LP[1], F[0]); p1 = fma(p1, x, LP[2], F[0])
    p2 = fma(x, LP[3], LP[4], F[0]); p2 = fma(p2, x, LP[5], F[0])
    p3 = fma(x, LP[6], LP[7], F[0]); p3 = fma(p3, x, LP[8], F[0])
    q = fma(p1, x3, p2, F[1]); q = fma(q, x3, p3, F[1])
    a = fma(f32(-0.5), x2, x, F[2])            # x - 0.5*x^2 (product exact)
    b = fma(x3, q, ex * LN2_LO, F[3])          # x^3*q + e*ln2_lo
    r = a + b
    r = fma(LN2_HI, ex, r, F[4])               # + e*ln2_hi
    with np.errstate(invalid='ignore'):
        r = np.where(v <= 0, f32(np.nan), r)
        r = np.where(np.isnan(v), f32(np.nan), r)
        r = np.where(v == 0, f32(-np.inf), r)
        r = np.where(v == np.inf, f32(np.inf), r)
    return r.astype(f32)

def _log1p_small(x, F):
    x2 = x * x
    z = x * f32(0)
    Q = z + f32(1)
    P = z + L1P_P0
    for c in L1P_Q: Q = fma(Q, x, c, F[5])
    for c in L1P_P: P = fma(P, x, c, F[5])
    r = P / Q
    t = (x * x2) * r
    t = fma(f32(-0.5), x2, t, F[6])
    return x + t

def xla_log1p(x, F=(1,)*8):
    x = np.asarray(x, f32)
    with np.errstate(all='ignore'):
        big = xla_log(x + f32(1), F)
        small = _log1p_small(x, F)
    return np.where(np.abs(x) < L1P_THR, small, big).astype(f32)

def xla_erf_inv(x, F=(1,)*8):
    x = np.asarray(x, f32)
    with np.errstate(all='ignore'):
        t = x * (-x)                            # NOT fused with the +1 below
        lp = xla_log1p(t, F)                    # = -w
        cond = lp > f32(-5)                     # w < 5
        z = np.where(cond, f32(-2.5) - lp, np.sqrt(-lp) + f32(-3))
        p = np.where(cond, EI_A[0], EI_B[0])
        for a, b in zip(EI_A[1:], EI_B[1:]):
            p = fma(z, p, np.where(cond, a, b), F[7])
        p = np.where(np.abs(x) == f32(1), f32(np.inf), p)
        return (x * p).astype(f32)

# ---- XLA:CPU runs with FTZ+DAZ (denormal inputs read as signed zero, denormal results flushed) ----
TINY = C(0x00800000)
def ftz(a):
    a = np.asarray(a, f32)
    return np.where(np.abs(a) < TINY, np.copysign(f32(0), a), a).astype(f32)
def jax_log(x):     return ftz(xla_log(ftz(x)))
def jax_log1p(x):   return ftz(xla_log1p(ftz(x)))
def jax_erf_inv(x):
    x = ftz(x)
    return ftz(xla_erf_inv(x))   # x*(-x) underflow: FTZ gives -0 -> log1p(-0) = -0 -> same p; result x*p flushed
