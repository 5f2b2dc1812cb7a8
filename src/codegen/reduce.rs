//! Reduction kernels: multi-pass trees without workgroup memory.
//!
//! *Row* passes reduce the innermost axes: each of a row's `parts` threads combines
//! `ROW_CHUNK` of its elements (`vec4`s where rows are whole vectors) into one partial.
//! Groups of `INTERLEAVE` threads share a contiguous block of the row and read it side
//! by side, one element each per step, so a step's loads are one line: GPUs coalesce
//! them, llvmpipe gathers them from one cache line, and blocks stream in order.
//! *Column* passes reduce leading axes of arrays whose innermost axis is kept:
//! each thread walks `COLUMN_CHUNK` rows of one column, so neighbouring threads read
//! neighbouring elements. Either way a long axis leaves partials that the next pass
//! reduces, so float32 sums accumulate as a tree of short sequential sums and their error
//! grows like log n (a CPU adapter takes a small reduction in one pass instead, as a
//! launch there costs more than the walk: `pass_chunk`). float16 accumulates in float32.
//! Measured on lavapipe: dropping the earlier workgroup-memory tree (eight barriers per
//! workgroup) took the 16M-float sum from 0.8 to 5 GB/s, column passes took a
//! leading-axis sum from 0.2 to 1.7 GB/s, and reading blocks side by side (with clamped
//! loads instead of a branch per step) took the 16M-float sum from 5-6 to 9-11 GB/s and
//! its rows of 4096 from 5-7 to 9-10 GB/s.

use std::fmt::Write;

use super::{
    declare, declare_output, storage_types, Generated, InputDesc, Program, Target, WORKGROUP,
};
use crate::dtype::DType;
use crate::error::Result;
use crate::primitive::ReduceOp;
use crate::shape::Layout;

/// The accumulator dtype of a reduction over `input` (float16 accumulates in float32;
/// and/or accumulate 0/1 words, which are bool's storage).
pub(crate) fn accumulator(op: ReduceOp, input: DType) -> DType {
    match (op, input) {
        (ReduceOp::And | ReduceOp::Or, _) => DType::Bool,
        (_, DType::Float16) => DType::Float32,
        (_, d) => d,
    }
}

fn acc_type(d: DType) -> &'static str {
    match d {
        DType::Int32 => "i32",
        DType::UInt32 | DType::Bool => "u32",
        _ => "f32",
    }
}

/// The value `op`'s accumulators start from, for elements of `elem` held as `acc`: the
/// result over an empty axis, so int8 and int16 maxima and minima start from their own
/// bounds (in int32 those would wrap to 0 and -1). A float sum starts from a zero the
/// compiler cannot see: NIR folds `0.0 + x` into `x` (which keeps `-0.0` where XLA, adding
/// its init value, gives `+0.0`) once it unrolls the first step. The word is the pass's
/// count of partials (`md[2]` in every kernel here), always under 2^31.
fn identity(op: ReduceOp, acc: DType, elem: DType) -> &'static str {
    use ReduceOp::*;
    match (op, elem) {
        (Max, DType::Int8) => return "-128",
        (Max, DType::Int16) => return "-32768",
        (Min, DType::Int8) => return "127",
        (Min, DType::Int16) => return "32767",
        _ => {}
    }
    match (op, acc) {
        (Sum, DType::Int32) => "0",
        (Sum, DType::UInt32) => "0u",
        (Sum, _) => "bitcast<f32>(md[2] >> 31u)",
        (Prod, DType::Int32) => "1",
        (Prod, DType::UInt32) => "1u",
        (Prod, _) => "1.0",
        (Max, DType::Int32) => "(-2147483647 - 1)",
        (Max, DType::UInt32) => "0u",
        (Max, _) => "bitcast<f32>(0xff800000u)",
        (Min, DType::Int32) => "2147483647",
        (Min, DType::UInt32) => "4294967295u",
        (Min, _) => "bitcast<f32>(0x7f800000u)",
        (And, _) => "1u",
        (Or, _) => "0u",
    }
}

fn combine(op: ReduceOp, acc: DType, a: &str, b: &str) -> String {
    use ReduceOp::*;
    let float = acc.is_floating();
    match op {
        Sum => format!("({a} + {b})"),
        Prod => format!("({a} * {b})"),
        Max if float => format!("nan_max_f32({a}, {b})"),
        Min if float => format!("nan_min_f32({a}, {b})"),
        Max | Or => format!("max({a}, {b})"),
        Min | And => format!("min({a}, {b})"),
    }
}

/// What the first pass of a reduction reads: a buffer through its layout, or the values
/// of a fused elementwise program (a jitted reduction's producer chain, whose values are
/// never stored). Later passes read the partials buffer.
pub(crate) struct Source {
    /// The metadata binding, `B`, the input bindings and their loaders.
    decls: String,
    /// Metadata words after the kernel's three sizes.
    meta: Vec<u32>,
    uses_f16: bool,
    /// The first binding after the inputs (the output's).
    binding: u32,
    /// The dtype of the values reduced.
    dtype: DType,
    /// Whether four consecutive elements are read at once (`vec`), else one (`scalar`).
    pub(crate) vector: bool,
    program: bool,
    /// Whether the pass sets `walk_pos` for the program ([`super::Walk`]).
    pub(crate) walks: bool,
    /// The values reduced side by side (a program's outputs, each to its own buffer).
    outputs: usize,
}

impl Source {
    /// A buffer of `dtype` read through `layout` from a buffer bound as `windows` windows.
    /// `run` is the length of the contiguous runs the kernel reads (the reduced length
    /// for rows, the kept length for columns): vector loads need whole `vec4`s.
    pub(crate) fn buffer(
        op: ReduceOp,
        dtype: DType,
        layout: &Layout,
        windows: u64,
        run: u64,
        t: &Target,
    ) -> Source {
        let t = &super::input_target(t, windows);
        let at = acc_type(accumulator(op, dtype));
        let vector = vectorizable(dtype, layout, run, t);
        let mut src = String::new();
        src.push_str(
            "@group(0) @binding(0) var<storage, read> md: array<u32>;\nconst B: u32 = 4u;\n",
        );
        let ((sty, sbytes), (vty, vbytes)) = storage_types(dtype, t);
        let mut binding = 1u32;
        let (ity, ibytes) = if vector { (vty, vbytes) } else { (sty, sbytes) };
        declare(
            &mut src,
            &mut binding,
            "in0",
            ity,
            ibytes,
            windows,
            false,
            t,
        );
        if !vector {
            if layout.is_contiguous() {
                let _ = writeln!(src, "fn off0(i: u32) -> u32 {{\n    return i + md[3];\n}}");
            } else {
                let _ = writeln!(src, "fn off0(i: u32) -> u32 {{\n    let rank = md[B];\n    let s = B + 1u + rank;\n    var o = bitcast<i32>(md[s]);\n    var rem = i;\n    for (var d = rank; d > 0u; d = d - 1u) {{\n        let sz = md[B + d];\n        o = o + i32(rem % sz) * bitcast<i32>(md[s + d]);\n        rem = rem / sz;\n    }}\n    return u32(o);\n}}");
            }
            let load = match dtype {
                DType::Float16 if t.f16_native => "f32(in0(e))".to_string(),
                DType::Float16 => {
                    "f16_to_f32((in0(e >> 1u) >> ((e & 1u) * 16u)) & 0xffffu)".to_string()
                }
                _ => "in0(e)".to_string(),
            };
            let _ = writeln!(
                src,
                "fn ld(i: u32) -> {at} {{\n    let e = off0(i);\n    return {load};\n}}"
            );
        }
        // The input offset, then the layout.
        let mut meta = vec![layout.offset as u32, layout.shape.len() as u32];
        meta.extend(layout.shape.iter().map(|&d| d as u32));
        meta.push(layout.offset as u32);
        meta.extend(layout.strides.iter().map(|&s| s as i32 as u32));
        Source {
            decls: src,
            meta,
            uses_f16: t.f16_native && dtype == DType::Float16,
            binding,
            dtype,
            vector,
            program: false,
            walks: false,
            outputs: 1,
        }
    }

    /// The values of `program` over `inputs`, a contiguous array of `shape` (the reduced
    /// axes already moved where the kernel reads them). `stored` is the layout the values
    /// would have had if they were stored and then moved: they are read four at a time
    /// exactly when that layout would be, so a fused reduction adds in the same order as
    /// the unfused one and gives the same bits. Each output of the program (all of one
    /// dtype) is reduced on its own accumulator into its own buffer, as it alone would be.
    /// `walk` is how the first pass that reads them walks `shape`.
    pub(crate) fn program(
        program: &Program,
        inputs: &[InputDesc<'_>],
        shape: &[usize],
        stored: &Layout,
        (run, walk): (u64, super::Walk),
        t: &Target,
    ) -> Result<Source> {
        let dtype = program.dtype_of(program.outputs[0]);
        let vector = Source::program_reads_vectors(dtype, stored, run, t);
        debug_assert!(program
            .outputs
            .iter()
            .all(|&o| program.dtype_of(o) == dtype));
        let v = super::values(program, inputs, shape, 3, !vector, true, walk, t)?;
        Ok(Source {
            decls: v.src,
            meta: v.meta,
            uses_f16: v.uses_f16,
            binding: v.binding,
            dtype,
            vector,
            program: true,
            walks: v.walks,
            outputs: program.outputs.len(),
        })
    }

    /// Whether [`Source::program`] reads a program's values of `dtype` four at a time.
    pub(crate) fn program_reads_vectors(
        dtype: DType,
        stored: &Layout,
        run: u64,
        t: &Target,
    ) -> bool {
        vectorizable(dtype, stored, run, t)
    }

    /// The four elements from flat index `4q` on, as accumulator values.
    fn vec(&self, q: &str) -> String {
        match (self.program, self.dtype) {
            (false, _) => format!("in0({q} + md[3] / 4u)"),
            (true, DType::Bool) => format!("select(vec4<u32>(0u), vec4<u32>(1u), value4({q}))"),
            (true, _) => format!("value4({q})"),
        }
    }

    /// The element at flat index `i`, as an accumulator value.
    fn scalar(&self, i: &str) -> String {
        match (self.program, self.dtype) {
            (false, _) => format!("ld({i})"),
            (true, DType::Bool) => format!("select(0u, 1u, value1({i}))"),
            (true, _) => format!("value1({i})"),
        }
    }

    /// The values at `at` (flat index `4q` for `vec4`s where `four`, else `i`) as
    /// accumulator values, one expression per output: with several, `let {name} = ..;`
    /// (the first part) reads them all once and each expression takes its field.
    fn read(&self, at: &str, four: bool, name: &str) -> (String, Vec<String>) {
        if self.outputs == 1 {
            let e = if four { self.vec(at) } else { self.scalar(at) };
            return (String::new(), vec![e]);
        }
        let f = if four { "value4" } else { "value1" };
        let exprs = (0..self.outputs)
            .map(|j| {
                let x = format!("{name}.o{j}");
                match (self.dtype, four) {
                    (DType::Bool, true) => format!("select(vec4<u32>(0u), vec4<u32>(1u), {x})"),
                    (DType::Bool, false) => format!("select(0u, 1u, {x})"),
                    _ => x,
                }
            })
            .collect();
        (format!("let {name} = {f}({at});\n"), exprs)
    }

    /// The name of output `j`'s accumulator or buffer `base` (`base` alone for one).
    fn named(&self, base: &str, j: usize) -> String {
        if self.outputs == 1 {
            base.to_string()
        } else {
            format!("{base}{j}")
        }
    }

    /// The source's declarations and the outputs', as words of the accumulator.
    fn declare_all(&self, acc: DType, out_windows: u64, t: &Target) -> String {
        let mut src = self.decls.clone();
        let mut binding = self.binding;
        for j in 0..self.outputs {
            let name = self.named("out", j);
            declare_output(&mut src, &mut binding, &name, acc, false, out_windows, t);
        }
        src
    }

    /// The kernel's metadata: three sizes, then the source's words.
    fn meta(&self, a: u64, b: u64, c: u64) -> Vec<u32> {
        // Sizes of one buffer's worth of elements: they fit u32.
        let mut meta = vec![a as u32, b as u32, c as u32];
        meta.extend_from_slice(&self.meta);
        meta
    }
}

/// The elementwise consumers of a one-pass reduction's results, computed by the
/// reduction's threads right after their results (jit's fusion of a reduction with what
/// it feeds: `sum(x) * c + y`): a program over the results (the inputs marked given) and
/// other operands read at the result's index, each output stored to a buffer of its own.
/// One launch instead of two, where a CPU adapter's launch costs more than the work of a
/// small program. Only a reduction that ends in its first pass takes one.
pub(crate) struct Epilogue {
    decls: String,
    meta: Vec<u32>,
    uses_f16: bool,
    /// Each given program input, the reduction output it is, and its dtype.
    given: Vec<(usize, usize, DType)>,
    outputs: Vec<DType>,
}

/// The dtypes an epilogue stores: one word per element, as the reduction's own outputs.
pub(crate) fn epilogue_stores(d: DType) -> bool {
    matches!(
        d,
        DType::Float32 | DType::Int32 | DType::UInt32 | DType::Bool
    )
}

impl Epilogue {
    /// The epilogue of a reduction reading `source` into outputs of `out_windows`
    /// windows: `program` over `inputs` (one per program input; the descriptions of given
    /// inputs are not read) with `given[k]` the reduction output that input `k` is, over
    /// the results' shape `shape` (their count and order, as the reduction writes them).
    pub(crate) fn new(
        source: &Source,
        out_windows: u64,
        program: &Program,
        (inputs, given): (&[InputDesc<'_>], &[Option<usize>]),
        shape: &[usize],
        t: &Target,
    ) -> Result<Epilogue> {
        let is_given: Vec<bool> = given.iter().map(Option::is_some).collect();
        let naming = super::Naming {
            prefix: "ep_",
            binding: source.binding + (source.outputs as u64 * out_windows) as u32,
            given: &is_given,
        };
        let header = 3 + source.meta.len();
        let walk = super::Walk::Flat;
        let v = super::values_named(
            program,
            inputs,
            shape,
            (header, true, true, walk),
            t,
            &naming,
        )?;
        let outputs: Vec<DType> = program
            .outputs
            .iter()
            .map(|&o| program.dtype_of(o))
            .collect();
        debug_assert!(outputs.iter().all(|&d| epilogue_stores(d)));
        let mut decls = v.src;
        let mut binding = v.binding;
        for (j, &d) in outputs.iter().enumerate() {
            super::declare_output(
                &mut decls,
                &mut binding,
                &format!("ep_out{j}"),
                d,
                false,
                1,
                t,
            );
        }
        Ok(Epilogue {
            decls,
            meta: v.meta,
            uses_f16: v.uses_f16,
            given: given
                .iter()
                .enumerate()
                .filter_map(|(k, g)| g.map(|j| (k, j, program.inputs[k])))
                .collect(),
            outputs,
        })
    }

    /// Statements that compute the epilogue at result index `at` from the results `accs`
    /// (one expression per reduction output) and store its outputs.
    fn store(&self, at: &str, accs: &[String]) -> String {
        let mut s = String::new();
        for &(k, j, d) in &self.given {
            let acc = match d {
                // (and/or accumulate bool's 0/1 words.)
                DType::Bool => format!("({} != 0u)", accs[j]),
                // Opaque to the compiler, as a stored and loaded result is: no `fma` of
                // the reduction's last product and the epilogue's first sum (the word
                // `md[2] >> 31u` is always 0, as in `identity`).
                DType::Float32 => {
                    format!("bitcast<f32>(bitcast<u32>({}) ^ (md[2] >> 31u))", accs[j])
                }
                _ => accs[j].clone(),
            };
            let _ = writeln!(s, "    ep_given{k} = {acc};");
        }
        let _ = writeln!(s, "    let ep = ep_value1({at});");
        let single = self.outputs.len() == 1;
        for (j, &d) in self.outputs.iter().enumerate() {
            let v = if single {
                "ep".to_string()
            } else {
                format!("ep.o{j}")
            };
            let v = if d == DType::Bool {
                format!("select(0u, 1u, {v})")
            } else {
                v
            };
            let _ = writeln!(s, "    ep_out{j}_st({at}, {v});");
        }
        format!("    {{\n{s}    }}\n")
    }
}

/// `combine` on `vec4`s, component by component.
fn combine4(op: ReduceOp, acc: DType, a: &str, b: &str) -> String {
    match (op, acc.is_floating()) {
        (ReduceOp::Max | ReduceOp::Min, true) => {
            let f = if op == ReduceOp::Max {
                "nan_max_f32"
            } else {
                "nan_min_f32"
            };
            format!("vec4<f32>({f}({a}.x, {b}.x), {f}({a}.y, {b}.y), {f}({a}.z, {b}.z), {f}({a}.w, {b}.w))")
        }
        _ => combine(op, acc, a, b),
    }
}

/// Whether a contiguous operand is read as `vec4` words: 4-byte elements, an offset and a
/// run length that are multiples of four.
fn vectorizable(in_dtype: DType, layout: &Layout, run: u64, t: &Target) -> bool {
    let ((_, sbytes), _) = storage_types(in_dtype, t);
    layout.is_contiguous()
        && layout.offset.is_multiple_of(4)
        && run.is_multiple_of(4)
        && sbytes == 4
        && in_dtype != DType::Float16
}

/// Rows reduced by each column-reduction thread per pass.
pub(crate) const COLUMN_CHUNK: u64 = 16;

/// One pass of a reduction over a *leading* axis: the input (through its layout) is
/// `[k, cols]` with the kept elements innermost; thread `(part, c)` combines rows
/// `part * chunk ..` of column `c` into `out[part, c]` (`chunk`: [`pass_chunk`]).
/// Neighbouring threads read neighbouring elements, so the loads stream; a `k` of more
/// than one chunk leaves `[parts, cols]` partials for the next pass (a tree of 16-way sums
/// with [`COLUMN_CHUNK`]). Each value of a source with several is reduced into its own
/// output.
#[allow(clippy::too_many_arguments)]
pub(crate) fn column_reduction(
    op: ReduceOp,
    source: &Source,
    cols: u64,
    (k, parts, chunk): (u64, u64, u64),
    out_windows: u64,
    epilogue: Option<&Epilogue>,
    t: &Target,
) -> (Generated, u64) {
    debug_assert!(
        epilogue.is_none() || parts == 1,
        "an epilogue after a first pass of many"
    );
    let acc = accumulator(op, source.dtype);
    let at = acc_type(acc);
    // Four neighbouring columns per thread, one vec4 load per row, where rows are whole
    // vec4s.
    let vector = source.vector;
    let mut src = source.declare_all(acc, out_windows, t);
    let id = identity(op, acc, source.dtype);
    let (per, lanes, at_r) = if vector {
        (
            "cols / 4u",
            format!("vec4<{at}>({id})"),
            "r * cols / 4u + c",
        )
    } else {
        ("cols", id.to_string(), "r * cols + c")
    };
    let ty = if vector {
        format!("vec4<{at}>")
    } else {
        at.to_string()
    };
    // One accumulator and output per value reduced.
    let (bind, loads) = source.read(at_r, vector, "v");
    let (mut decls, mut body, mut store) = (String::new(), String::new(), String::new());
    if source.walks {
        body += "            walk_pos = r;\n";
    }
    if !bind.is_empty() {
        body += &format!("            {bind}");
    }
    for (j, load) in loads.iter().enumerate() {
        let (a, o) = (source.named("acc", j), source.named("out", j));
        let e = if vector {
            combine4(op, acc, &a, load)
        } else {
            combine(op, acc, &a, load)
        };
        let _ = writeln!(decls, "    var {a}: {ty} = {lanes};");
        let _ = writeln!(body, "            {a} = {e};");
        if vector {
            for (lane, f) in ["x", "y", "z", "w"].iter().enumerate() {
                let plus = if lane == 0 {
                    String::new()
                } else {
                    format!(" + {lane}u")
                };
                let _ = writeln!(store, "    {o}_st(part * cols + 4u * c{plus}, {a}.{f});");
            }
        } else {
            let _ = writeln!(store, "    {o}_st(g, {a});");
        }
    }
    if let Some(e) = epilogue {
        // Each result's consumers at its index (the one pass: `part` is 0).
        let n = source.outputs;
        if vector {
            for (lane, f) in ["x", "y", "z", "w"].iter().enumerate() {
                let accs: Vec<String> = (0..n)
                    .map(|j| format!("{}.{f}", source.named("acc", j)))
                    .collect();
                // (The last vector's lanes past the end store nothing.)
                let at = format!("4u * c + {lane}u");
                store += &format!("    if ({at} < cols) {{\n{}    }}\n", e.store(&at, &accs));
            }
        } else {
            let accs: Vec<String> = (0..n).map(|j| source.named("acc", j)).collect();
            store += &e.store("g", &accs);
        }
    }
    let _ = writeln!(
        src,
        "@compute @workgroup_size({WORKGROUP})\nfn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {{\n    let g = (wg.y * nwg.x + wg.x) * {WORKGROUP}u + li;\n    let cols = md[0];\n    let k = md[1];\n    let per = {per};\n    if (g >= per * md[2]) {{ return; }}\n    let part = g / per;\n    let c = g - part * per;\n{decls}    for (var j = 0u; j < {chunk}u; j = j + 1u) {{\n        let r = part * {chunk}u + j;\n        if (r < k) {{\n{body}        }}\n    }}\n{store}}}",
    );
    let threads = if vector { cols / 4 } else { cols } * parts;
    (
        with_epilogue(src, source, epilogue, (cols, k, parts)),
        threads,
    )
}

/// A reduction kernel's source with `epilogue`'s declarations after its own, and its
/// metadata (`sizes`, the source's words, the epilogue's).
fn with_epilogue(
    mut src: String,
    source: &Source,
    epilogue: Option<&Epilogue>,
    (a, b, c): (u64, u64, u64),
) -> Generated {
    let mut meta = source.meta(a, b, c);
    let mut uses_f16 = source.uses_f16;
    if let Some(e) = epilogue {
        // (Declarations may follow the entry point in WGSL.)
        src.push_str(&e.decls);
        meta.extend_from_slice(&e.meta);
        uses_f16 |= e.uses_f16;
    }
    Generated {
        body: src,
        uses_f16,
        meta,
    }
}

/// Elements each thread of the row kernel combines per pass.
pub(crate) const ROW_CHUNK: u64 = 64;

/// The longest `k` a CPU adapter reduces in one pass ([`pass_chunk`]).
pub(crate) const ONE_PASS: u64 = 4096;

/// The most elements (`rows * k`) a CPU adapter reduces in one pass ([`pass_chunk`]).
pub(crate) const ONE_PASS_ELEMENTS: u64 = 1 << 18;

/// The elements each thread combines in a pass over `k` for `rows` kept values:
/// [`COLUMN_CHUNK`] or [`ROW_CHUNK`], except on a CPU adapter (`cpu`) for small
/// reductions (`k` up to [`ONE_PASS`], [`ONE_PASS_ELEMENTS`] in all), where a launch (on
/// lavapipe, a handoff to the driver's threads and back) costs more than one lane's walk
/// over the whole of `k`: there the chunk is `k`'s next power of two, one pass (a few sizes keep
/// the kernel cache small; the guarded steps past `k` cost less than the launch saved).
/// Larger reductions keep the trees, whose passes then cost far more than a launch.
pub(crate) fn pass_chunk(columns: bool, (rows, k): (u64, u64), cpu: bool) -> u64 {
    let chunk = if columns { COLUMN_CHUNK } else { ROW_CHUNK };
    if cpu && k > chunk && k <= ONE_PASS && rows.saturating_mul(k) <= ONE_PASS_ELEMENTS {
        k.next_power_of_two()
    } else {
        chunk
    }
}

/// Threads of a row that read a block of the row together, each step one element (or
/// `vec4`) per thread side by side: 8 `vec4`s are one 128-byte line.
const INTERLEAVE: u64 = 8;

/// One pass of a reduction over the innermost axes without workgroup memory: thread
/// `(row, part)` combines `chunk` elements of its row ([`pass_chunk`]; `vec4`s when rows
/// are whole `vec4`s, two at a step, so `chunk` is a multiple of 8) into
/// `out[row, part]`, `INTERLEAVE` threads reading one block of the row side by side (a
/// row's last group may be smaller and takes the rest). Further passes reduce the
/// partials (a tree of 64-way sums with [`ROW_CHUNK`], so float32 error still grows like
/// log n). Each value of a source with several is reduced into its own output.
/// The vector path clamps its loads and selects the identity past the row's end:
/// llvmpipe runs a branch in the loop as masked gathers, about 20% slower.
#[allow(clippy::too_many_arguments)]
pub(crate) fn row_reduction(
    op: ReduceOp,
    source: &Source,
    rows: u64,
    (k, parts, chunk): (u64, u64, u64),
    out_windows: u64,
    epilogue: Option<&Epilogue>,
    t: &Target,
) -> Generated {
    debug_assert!(
        epilogue.is_none() || parts == 1,
        "an epilogue after a first pass of many"
    );
    let acc = accumulator(op, source.dtype);
    let at = acc_type(acc);
    let vector = source.vector;
    debug_assert!(!vector || chunk.is_multiple_of(8), "a chunk of {chunk}");
    let mut src = source.declare_all(acc, out_windows, t);
    let id = identity(op, acc, source.dtype);
    // One accumulator (two `vec4`s on the vector path) and output per value reduced.
    let n = source.outputs;
    let accs: Vec<String> = (0..n).map(|j| source.named("acc", j)).collect();
    let walk = if source.walks {
        "    walk_pos = row * k;\n"
    } else {
        ""
    };
    let inner = if vector {
        let c4 = |a: &str, b: &str| combine4(op, acc, a, b);
        // Two independent vec4 accumulators halve the dependency chain.
        let id4 = format!("vec4<{at}>({id})");
        let (bind_a, loads_a) = source.read("min(u, last4)", true, "v");
        let (bind_b, loads_b) = source.read("min(u1, last4)", true, "w");
        let (mut decls, mut steps, mut ends) = (String::new(), String::new(), String::new());
        for b in [&bind_a, &bind_b].into_iter().filter(|b| !b.is_empty()) {
            steps += &format!("        {b}");
        }
        let (a4s, b4s): (Vec<String>, Vec<String>) = (0..n)
            .map(|j| (source.named("a4_", j), source.named("b4_", j)))
            .map(|(a, b)| {
                if n == 1 {
                    ("a4".to_string(), "b4".to_string())
                } else {
                    (a, b)
                }
            })
            .unzip();
        for j in 0..n {
            let (a4, b4) = (&a4s[j], &b4s[j]);
            let _ = writeln!(decls, "    var {a4} = {id4};\n    var {b4} = {id4};");
            let sel = |l: &str, u: &str| format!("select({id4}, {l}, {u} < end4)");
            let _ = writeln!(steps, "        {a4} = {};", c4(a4, &sel(&loads_a[j], "u")));
            let (x, y, z, w) = (
                format!("{a4}.x"),
                format!("{a4}.y"),
                format!("{a4}.z"),
                format!("{a4}.w"),
            );
            let _ = writeln!(
                ends,
                "    {a4} = {};\n    let {} = {};",
                c4(a4, b4),
                accs[j],
                combine(
                    op,
                    acc,
                    &combine(op, acc, &x, &y),
                    &combine(op, acc, &z, &w)
                )
            );
        }
        for j in 0..n {
            let _ = writeln!(
                steps,
                "        {} = {};",
                b4s[j],
                c4(
                    &b4s[j],
                    &format!("select({id4}, {}, u1 < end4)", loads_b[j])
                )
            );
        }
        format!(
            "    let base4 = row * k / 4u;\n    let end4 = base4 + k / 4u;\n    let last4 = max(end4, 1u) - 1u;\n    let start4 = base4 + grp * {block}u + lane;\n{decls}    for (var j = 0u; j < {q}u; j = j + 2u) {{\n        let u = start4 + j * gsize;\n        let u1 = u + gsize;\n{steps}    }}\n{ends}",
            q = chunk / 4,
            block = chunk / 4 * INTERLEAVE,
        )
    } else {
        let (bind, loads) = source.read("row * k + kk", false, "v");
        let (mut decls, mut body) = (String::new(), String::new());
        if !bind.is_empty() {
            body += &format!("            {bind}");
        }
        for (a, load) in accs.iter().zip(&loads) {
            let _ = writeln!(decls, "    var {a}: {at} = {id};");
            let _ = writeln!(body, "            {a} = {};", combine(op, acc, a, load));
        }
        format!(
            "{decls}    for (var j = 0u; j < {chunk}u; j = j + 1u) {{\n        let kk = grp * {block}u + lane + j * gsize;\n        if (kk < k) {{\n{body}        }}\n    }}\n",
            block = chunk * INTERLEAVE,
        )
    };
    let mut store: String = accs
        .iter()
        .enumerate()
        .map(|(j, a)| format!("    {}_st(g, {a});\n", source.named("out", j)))
        .collect();
    if let Some(e) = epilogue {
        // (One pass: thread `g` is row `g`'s only one.)
        store += &e.store("g", &accs);
    }
    let _ = writeln!(
        src,
        "@compute @workgroup_size({WORKGROUP})\nfn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {{\n    let g = (wg.y * nwg.x + wg.x) * {WORKGROUP}u + li;\n    let rows = md[0];\n    let k = md[1];\n    let parts = md[2];\n    if (g >= rows * parts) {{ return; }}\n    let row = g / parts;\n    let part = g - row * parts;\n    let grp = part / {INTERLEAVE}u;\n    let lane = part - grp * {INTERLEAVE}u;\n    let gsize = min({INTERLEAVE}u, parts - grp * {INTERLEAVE}u);\n{walk}{inner}{store}}}"
    );
    with_epilogue(src, source, epilogue, (rows, k, parts))
}

/// The dtype of the values an `argmax`/`argmin` pass keeps for `input`: float16 as
/// float32, bool as its 0/1 words.
pub(crate) fn arg_accumulator(input: DType) -> DType {
    match input {
        DType::Bool => DType::UInt32,
        DType::Float16 => DType::Float32,
        d => d,
    }
}

/// Index of no element yet: every position beats it in a tie, so a row of nothing but the
/// identity (`-inf` for `argmax`) still gives its first position.
const NO_INDEX: &str = "2147483647";

/// One pass of `argmax` (`max`) or `argmin` as a reduction of (value, position) pairs, so
/// the input is read once: the best value of each chunk and its position along the
/// reduced axis, the first of equal values, and the first NaN before any number (JAX's
/// order; `-0.0` equals `0.0`).
///
/// A first pass reads `source` and takes positions from where it reads. Each thread (each
/// `vec4` lane, where rows are read four at a time) meets its positions in increasing
/// order from its first element on, so it keeps a candidate only when strictly better,
/// with no position compare and a NaN flag instead of testing the best value: about half
/// the operations per element of a full pair compare, which bounds the pass on CPU
/// adapters. Partials from different threads and lanes, and later passes (which read the
/// previous pass's values through `source` and its positions from the `i32` buffer `ix`
/// bound as `index_windows`), compare pairs in full (`before`). Rows and columns are walked as
/// [`row_reduction`] and [`column_reduction`] walk them (`outer`: the rows or columns
/// kept); values go to `out` and positions to `oix`, each in `out_windows` windows.
/// Returns the kernel and its threads.
#[allow(clippy::too_many_arguments)]
pub(crate) fn arg_reduction(
    max: bool,
    source: &Source,
    index_windows: Option<u64>,
    columns: bool,
    (outer, k, parts, chunk): (u64, u64, u64, u64),
    out_windows: u64,
    t: &Target,
) -> (Generated, u64) {
    let op = if max { ReduceOp::Max } else { ReduceOp::Min };
    let acc = arg_accumulator(source.dtype);
    let at = acc_type(acc);
    // (The accumulator's own bound: positions of narrow values compare in int32.)
    let id = identity(op, acc, acc);
    let float = acc.is_floating();
    let mut src = source.decls.clone();
    let mut binding = source.binding;
    if let Some(w) = index_windows {
        declare(&mut src, &mut binding, "ix", "i32", 4, w, false, t);
    }
    declare_output(&mut src, &mut binding, "out", acc, false, out_windows, t);
    let index = DType::Int32;
    declare_output(&mut src, &mut binding, "oix", index, false, out_windows, t);
    let gt = if max { ">" } else { "<" };
    let before = if float {
        format!(
            "    let vn = is_nan_f32(v);\n    let bn = is_nan_f32(b);\n    return (vn && !bn) || (!vn && !bn && v {gt} b) || ((v == b || (vn && bn)) && i < bi);"
        )
    } else {
        format!("    return v {gt} b || (v == b && i < bi);")
    };
    let _ = writeln!(
        src,
        "fn before(v: {at}, i: i32, b: {at}, bi: i32) -> bool {{\n{before}\n}}"
    );
    // Pairs compared in full: (v, i) replaces the best where it comes before it.
    let full = |v: &str, i: &str| {
        format!(
            "            {{\n                let v = {v};\n                let i = {i};\n                let take = before(v, i, bv, bi);\n                bv = select(bv, v, take);\n                bi = select(bi, i, take);\n            }}\n"
        )
    };
    // Whether `v` (a value or, with `lanes`, a `vec4`) is NaN.
    let nan = |v: &str, lanes: bool| {
        if lanes {
            format!("((bitcast<vec4<u32>>({v}) & vec4<u32>(0x7fffffffu)) > vec4<u32>(0x7f800000u))")
        } else {
            format!("is_nan_f32({v})")
        }
    };
    // In increasing positions, from the thread's first element on: strictly better, or a
    // first NaN (after which nothing is).
    let in_order = |v: &str, i: &str, lanes: bool| {
        let (and, or) = if lanes { ("&", "|") } else { ("&&", "||") };
        let take = if float {
            // (WGSL's `&` and `|` take no comparison unparenthesised.)
            format!("!bn {and} (vn {or} (v {gt} bv))")
        } else {
            format!("v {gt} bv")
        };
        let flag = if float {
            format!("                let vn = {};\n", nan("v", lanes))
        } else {
            String::new()
        };
        let track = if float {
            format!("                bn = bn {or} (take {and} vn);\n")
        } else {
            String::new()
        };
        format!(
            "            {{\n                let v = {v};\n                let i = {i};\n{flag}                let take = {take};\n                bv = select(bv, v, take);\n                bi = select(bi, i, take);\n{track}            }}\n"
        )
    };
    let first = index_windows.is_none();
    // The best so far: a first pass starts from its thread's first element (every thread
    // has one), so ties need no position compare; a later pass from the identity and no
    // position, which `before` lets any element replace.
    let start = |first_element: Option<(String, String)>, lanes: bool| match first_element {
        Some((v, i)) => {
            let mut s = format!("    var bv = {v};\n    var bi = {i};\n");
            if float {
                let _ = writeln!(s, "    var bn = {};", nan("bv", lanes));
            }
            s
        }
        None => format!("    var bv: {at} = {id};\n    var bi: i32 = {NO_INDEX};\n"),
    };
    // The walk, then the names of the best value and position it leaves.
    let (walk, (b, p)) = if columns && source.vector {
        // Four neighbouring columns per thread, one `vec4` load per row (only a first
        // pass reads vectors); each lane is its own column.
        let body = in_order(&source.vec("r * cols / 4u + c"), "vec4<i32>(i32(r))", true);
        let r0 = format!("part * {chunk}u");
        let init = Some((
            source.vec(&format!("{r0} * cols / 4u + c")),
            format!("vec4<i32>(i32({r0}))"),
        ));
        let mut stores = String::new();
        for (lane, c) in ["x", "y", "z", "w"].iter().enumerate() {
            let _ = writeln!(
                stores,
                "    out_st(part * cols + 4u * c + {lane}u, bv.{c});\n    oix_st(part * cols + 4u * c + {lane}u, bi.{c});"
            );
        }
        (
            format!(
                "    let cols = md[0];\n    let k = md[1];\n    let per = cols / 4u;\n    if (g >= per * md[2]) {{ return; }}\n    let part = g / per;\n    let c = g - part * per;\n{}    for (var j = 0u; j < {chunk}u; j = j + 1u) {{\n        let r = part * {chunk}u + j;\n        if (r < k) {{\n{body}        }}\n    }}\n{stores}",
                start(init, true)
            ),
            ("", ""),
        )
    } else if columns {
        let body = if first {
            in_order(&source.scalar("r * cols + c"), "i32(r)", false)
        } else {
            full(&source.scalar("r * cols + c"), "ix(r * cols + c)")
        };
        let r0 = format!("part * {chunk}u");
        let init = first.then(|| {
            (
                source.scalar(&format!("{r0} * cols + c")),
                format!("i32({r0})"),
            )
        });
        (
            format!(
                "    let cols = md[0];\n    let k = md[1];\n    if (g >= cols * md[2]) {{ return; }}\n    let part = g / cols;\n    let c = g - part * cols;\n{}    for (var j = 0u; j < {chunk}u; j = j + 1u) {{\n        let r = part * {chunk}u + j;\n        if (r < k) {{\n{body}        }}\n    }}\n",
                start(init, false)
            ),
            ("bv", "bi"),
        )
    } else if source.vector {
        // Whole `vec4`s of each row, each lane its own candidate (only a first pass reads
        // vectors), then the four lanes' candidates compared in full.
        let lane_positions = |u: &str| format!("vec4<i32>(4 * i32({u})) + vec4<i32>(0, 1, 2, 3)");
        let body = in_order(&source.vec("row * k / 4u + u"), &lane_positions("u"), true);
        let u0 = format!("grp * {}u + lane", chunk / 4 * INTERLEAVE);
        let init = Some((
            source.vec(&format!("row * k / 4u + {u0}")),
            lane_positions(&u0),
        ));
        let mut lanes = String::from("    var b = bv.x;\n    var p = bi.x;\n");
        for c in ["y", "z", "w"] {
            let _ = writeln!(
                lanes,
                "    {{\n        let take = before(bv.{c}, bi.{c}, b, p);\n        b = select(b, bv.{c}, take);\n        p = select(p, bi.{c}, take);\n    }}"
            );
        }
        (
            format!(
                "    let rows = md[0];\n    let k = md[1];\n    let parts = md[2];\n    if (g >= rows * parts) {{ return; }}\n    let row = g / parts;\n    let part = g - row * parts;\n    let grp = part / {INTERLEAVE}u;\n    let lane = part - grp * {INTERLEAVE}u;\n    let gsize = min({INTERLEAVE}u, parts - grp * {INTERLEAVE}u);\n{}    for (var j = 0u; j < {q}u; j = j + 1u) {{\n        let u = grp * {block}u + lane + j * gsize;\n        if (u < k / 4u) {{\n{body}        }}\n    }}\n{lanes}",
                start(init, true),
                q = chunk / 4,
                block = chunk / 4 * INTERLEAVE,
            ),
            ("b", "p"),
        )
    } else {
        let body = if first {
            in_order(&source.scalar("row * k + kk"), "i32(kk)", false)
        } else {
            full(&source.scalar("row * k + kk"), "ix(row * k + kk)")
        };
        let kk0 = format!("grp * {}u + lane", chunk * INTERLEAVE);
        let init = first.then(|| {
            (
                source.scalar(&format!("row * k + {kk0}")),
                format!("i32({kk0})"),
            )
        });
        (
            format!(
                "    let rows = md[0];\n    let k = md[1];\n    let parts = md[2];\n    if (g >= rows * parts) {{ return; }}\n    let row = g / parts;\n    let part = g - row * parts;\n    let grp = part / {INTERLEAVE}u;\n    let lane = part - grp * {INTERLEAVE}u;\n    let gsize = min({INTERLEAVE}u, parts - grp * {INTERLEAVE}u);\n{}    for (var j = 0u; j < {chunk}u; j = j + 1u) {{\n        let kk = grp * {block}u + lane + j * gsize;\n        if (kk < k) {{\n{body}        }}\n    }}\n",
                start(init, false),
                block = chunk * INTERLEAVE,
            ),
            ("bv", "bi"),
        )
    };
    // (The vector column walk stores its four columns itself.)
    let store = if b.is_empty() {
        String::new()
    } else {
        format!("    out_st(g, {b});\n    oix_st(g, {p});\n")
    };
    let _ = writeln!(
        src,
        "@compute @workgroup_size({WORKGROUP})\nfn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {{\n    let g = (wg.y * nwg.x + wg.x) * {WORKGROUP}u + li;\n{walk}{store}}}"
    );
    (
        Generated {
            body: src,
            uses_f16: source.uses_f16,
            meta: source.meta(outer, k, parts),
        },
        if columns && source.vector {
            outer / 4 * parts
        } else {
            outer * parts
        },
    )
}
