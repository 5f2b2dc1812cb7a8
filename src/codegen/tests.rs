//! Every kernel the generator makes is valid WGSL that translates for every backend wgpu
//! drives; the prelude carries only what kernels call.
#![cfg(test)]

use super::*;
use crate::shape::Aval;

/// Parses and validates a WGSL module with naga, then translates it for every backend
/// wgpu drives: SPIR-V (Vulkan), MSL (Metal), HLSL (DX12) and GLSL ES 3.1 compute
/// (GL), each validated against the capabilities naga's writer supports first.
///
/// A kernel that needs `SHADER_F16` or subgroups is a variant the device selects only
/// where the adapter has the feature; wgpu's GL backend offers neither, so such
/// variants skip GLSL, and the tables that call this also emit their fallbacks
/// (emulated float16, the direct and tiled matmuls), which must translate everywhere.
/// Returns the backends it was translated for.
pub(crate) fn validate(src: &str) -> std::result::Result<Vec<&'static str>, String> {
    use naga::back::{glsl, hlsl, msl, spv};
    use naga::valid::{Capabilities, ValidationFlags, Validator};
    let module = naga::front::wgsl::parse_str(src).map_err(|e| e.emit_to_string(src))?;
    let check = |caps: Capabilities| {
        Validator::new(ValidationFlags::all(), caps)
            .validate(&module)
            .map_err(|e| format!("{e:?}"))
    };
    check(Capabilities::all())?;
    let needs = |cap: Capabilities| check(Capabilities::all() - cap).is_err();
    let f16 = needs(Capabilities::SHADER_FLOAT16);
    let subgroups = needs(Capabilities::SUBGROUP);

    let info = check(spv::supported_capabilities()).map_err(|e| format!("SPIR-V: {e}"))?;
    // wgpu asks for SPIR-V 1.3 where subgroup operations are enabled.
    let options = spv::Options {
        lang_version: if subgroups { (1, 3) } else { (1, 0) },
        ..Default::default()
    };
    spv::write_vec(&module, &info, &options, None).map_err(|e| format!("SPIR-V: {e}"))?;

    let info = check(msl::supported_capabilities()).map_err(|e| format!("MSL: {e}"))?;
    let options = msl::Options {
        lang_version: (2, 4),
        ..Default::default()
    };
    msl::write_string(&module, &info, &options, &msl::PipelineOptions::default())
        .map_err(|e| format!("MSL: {e}"))?;

    let info = check(hlsl::supported_capabilities()).map_err(|e| format!("HLSL: {e}"))?;
    // float16 needs shader model 6.2 (DXC), as wgpu asks for it with SHADER_F16.
    let options = hlsl::Options {
        shader_model: if f16 {
            hlsl::ShaderModel::V6_2
        } else {
            hlsl::ShaderModel::V6_0
        },
        ..Default::default()
    };
    let pipeline = hlsl::PipelineOptions { entry_point: None };
    let mut out = String::new();
    hlsl::Writer::new(&mut out, &options, &pipeline)
        .write(&module, &info, None)
        .map_err(|e| format!("HLSL: {e}"))?;

    if !f16 && !subgroups {
        let info = check(glsl::supported_capabilities()).map_err(|e| format!("GLSL: {e}"))?;
        let pipeline = glsl::PipelineOptions {
            shader_stage: naga::ShaderStage::Compute,
            entry_point: "main".into(),
            multiview: None,
        };
        let mut out = String::new();
        glsl::Writer::new(
            &mut out,
            &module,
            &info,
            &glsl::Options::default(),
            &pipeline,
            naga::proc::BoundsCheckPolicies::default(),
        )
        .and_then(|mut w| w.write())
        .map_err(|e| format!("GLSL: {e}"))?;
        return Ok(vec!["spv", "msl", "hlsl", "glsl"]);
    }
    Ok(vec!["spv", "msl", "hlsl"])
}

/// Every primitive has a shape rule, and every elementwise one a WGSL rule, and every
/// kernel the generator can emit for it (each dtype it accepts, vector and strided
/// inputs, native and emulated float16, one and several binding windows) is valid WGSL.
/// Every reduction kernel (each op and dtype it accepts, contiguous and strided inputs,
/// native and emulated float16, one and several windows) is valid WGSL.
#[test]
fn every_reduction_kernel_validates() {
    use crate::primitive::ReduceOp;
    let mut kernels = 0;
    for op in ReduceOp::ALL {
        for d in DType::ALL.into_iter().filter(|&d| widened(d).is_none()) {
            let logical = matches!(op, ReduceOp::And | ReduceOp::Or);
            if logical != (d == DType::Bool) {
                continue;
            }
            for_each_reduction_input(|t, windows, layout| {
                let rows = reduce::Source::buffer(op, d, layout, windows, 8, t);
                let cols = reduce::Source::buffer(op, d, layout, windows, 4, t);
                let out = windows.max(1);
                for g in [
                    reduce::row_reduction(op, &rows, 4, (8, 1, reduce::ROW_CHUNK), out, None, t),
                    reduce::column_reduction(
                        op,
                        &cols,
                        8,
                        (4, 1, reduce::COLUMN_CHUNK),
                        out,
                        None,
                        t,
                    )
                    .0,
                    // A CPU adapter's one pass.
                    reduce::row_reduction(op, &rows, 4, (8, 1, reduce::ONE_PASS), out, None, t),
                ] {
                    let source = g.source();
                    if let Err(e) = validate(&source) {
                        panic!("{} on {d}: {e}\n{source}", op.name());
                    }
                    kernels += 1;
                }
            });
        }
    }
    assert!(kernels >= 40, "{kernels}");
}

/// Every `argmax`/`argmin` pass validates: each dtype the passes read (bool, int32,
/// uint32, float16 native and emulated, float32), rows read four at a time and one at a
/// time, columns, first passes and later ones (which read positions), one window,
/// several, and a texture.
#[test]
fn every_arg_reduction_kernel_validates() {
    use crate::primitive::ReduceOp;
    let mut kernels = 0;
    for d in DType::ALL.into_iter().filter(|&d| widened(d).is_none()) {
        for max in [true, false] {
            let op = if max { ReduceOp::Max } else { ReduceOp::Min };
            for_each_reduction_input(|t, windows, layout| {
                let out = windows.max(1);
                // A first pass over rows reads vectors where it can.
                let rows = reduce::Source::buffer(op, d, layout, windows, 8, t);
                let one = reduce::Source::buffer(op, d, layout, windows, 1, t);
                let cols = reduce::Source::buffer(op, d, layout, windows, 4, t);
                let later = reduce::arg_accumulator(d);
                let partials = reduce::Source::buffer(op, later, layout, 1, 1, t);
                for (source, index, columns) in [
                    (&rows, None, false),
                    (&one, None, true),
                    (&cols, None, true),
                    (&partials, Some(out), false),
                    (&partials, Some(out), true),
                ] {
                    let (g, _) =
                        reduce::arg_reduction(max, source, index, columns, (4, 8, 1, 16), out, t);
                    let source = g.source();
                    if let Err(e) = validate(&source) {
                        panic!("arg reduction (max: {max}) on {d}: {e}\n{source}");
                    }
                    kernels += 1;
                }
            });
        }
    }
    assert!(kernels >= 250, "{kernels}");
}

/// Calls `f` with each target, input windows and layout the reduction kernels are
/// validated for: native and emulated float16; one window, two, and a texture; a
/// contiguous and a strided `[4, 8]` operand.
fn for_each_reduction_input(mut f: impl FnMut(&Target, u64, &Layout)) {
    let contiguous = Layout::contiguous(&[4, 8]);
    let strided = Layout {
        shape: vec![4, 8],
        strides: vec![1, 4],
        offset: 0,
    };
    for f16_native in [false, true] {
        for windows in [1u64, 2, TEXTURE] {
            for layout in [&contiguous, &strided] {
                let t = Target {
                    f16_native,
                    window_bytes: 1 << 27,
                    vectors: 1,
                    written_out: false,
                };
                f(&t, windows, layout);
            }
        }
    }
}

/// An epilogue over the results of a reduction of `outputs` values of `d` (reading the
/// last one) and a strided float32 operand, of `n` elements: a float32 product and a
/// bool comparison.
fn epilogue(
    source: &reduce::Source,
    op: crate::primitive::ReduceOp,
    d: DType,
    (outputs, w, n): (usize, u64, usize),
    t: &Target,
) -> reduce::Epilogue {
    use crate::primitive::{CompareOp, ReduceOp};
    let acc = match op {
        ReduceOp::And | ReduceOp::Or => DType::Bool,
        _ => reduce::accumulator(op, d),
    };
    let f = DType::Float32;
    let program = Program::new(
        vec![acc, f],
        vec![
            Node {
                prim: Primitive::ConvertElementType {
                    dtype: f,
                    weak: false,
                },
                args: vec![0],
                dtype: f,
            },
            Node {
                prim: Primitive::Binary(crate::primitive::BinaryOp::Mul),
                args: vec![2, 1],
                dtype: f,
            },
            Node {
                prim: Primitive::Compare(CompareOp::Eq),
                args: vec![2, 1],
                dtype: DType::Bool,
            },
        ],
    );
    let mut program = program;
    program.outputs = vec![3, 4];
    let given_layout = Layout::contiguous(&[n]);
    let strided = Layout {
        shape: vec![n],
        strides: vec![2],
        offset: 1,
    };
    let inputs = [&given_layout, &strided].map(|l| InputDesc {
        layout: l,
        windows: 1,
        map: &InputMap::Plain,
        padded: true,
    });
    let given = [Some(outputs - 1), None];
    reduce::Epilogue::new(source, w, &program, (&inputs, &given), &[n], t).unwrap()
}

/// Every fused reduction kernel (a program's values reduced without being stored: each
/// op and dtype, read four at a time and one at a time, contiguous and strided
/// operands, rows and columns, native and emulated float16) and with an epilogue
/// of its results, is valid WGSL.
#[test]
fn every_fused_reduction_kernel_validates() {
    use crate::primitive::{CompareOp, ReduceOp};
    let mut kernels = 0;
    for op in ReduceOp::ALL {
        for d in DType::ALL.into_iter().filter(|&d| widened(d).is_none()) {
            let logical = matches!(op, ReduceOp::And | ReduceOp::Or);
            if logical != (d == DType::Bool) {
                continue;
            }
            // select(x0 != x1, x0, x1)
            let ne = Primitive::Compare(CompareOp::Ne);
            let operand = Aval::new(vec![4, 8], d, false);
            let pred = ne
                .abstract_eval(&[operand.clone(), operand.clone()])
                .unwrap();
            let sel = Primitive::Select
                .abstract_eval(&[pred.clone(), operand.clone(), operand])
                .unwrap();
            let program = Program::new(
                vec![d, d],
                vec![
                    Node {
                        prim: ne,
                        args: vec![0, 1],
                        dtype: pred.dtype,
                    },
                    Node {
                        prim: Primitive::Select,
                        args: vec![2, 0, 1],
                        dtype: sel.dtype,
                    },
                ],
            );
            let contiguous = Layout::contiguous(&[4, 8]);
            let strided = Layout {
                shape: vec![4, 8],
                strides: vec![1, 4],
                offset: 0,
            };
            for f16_native in [false, true] {
                let t = Target {
                    f16_native,
                    window_bytes: 1 << 27,
                    vectors: 1,
                    written_out: false,
                };
                // The second operand: plain, a row broadcast over the rows (read at the
                // row kernel's position in the row) or a column spread across the columns
                // (read at the column kernel's row).
                let broadcast = |strides: Vec<isize>| Layout {
                    shape: vec![4, 8],
                    strides,
                    offset: 0,
                };
                let (row, column) = (broadcast(vec![0, 1]), broadcast(vec![1, 0]));
                let cases = [
                    (&contiguous, &contiguous, &contiguous),
                    (&strided, &strided, &contiguous),
                    (&contiguous, &contiguous, &row),
                    (&strided, &strided, &column),
                ];
                for (a, stored, b) in cases {
                    let inputs: Vec<InputDesc<'_>> = [a, b]
                        .iter()
                        .map(|l| InputDesc {
                            layout: l,
                            windows: 1,
                            map: &InputMap::Plain,
                            padded: true,
                        })
                        .collect();
                    // One value, and two reduced side by side (the select and `x0`).
                    let mut pair = program.clone();
                    pair.outputs = vec![3, 0];
                    for (g, p) in [&program, &pair].into_iter().flat_map(|p| {
                        let source = |walk| {
                            let s =
                                reduce::Source::program(p, &inputs, &[4, 8], stored, (8, walk), &t);
                            s.unwrap()
                        };
                        let (by_rows, by_columns) = (Walk::Rows(8), Walk::Columns(8));
                        // The broadcasts are read at the walk's position.
                        assert_eq!(source(by_rows).walks, std::ptr::eq(b, &row));
                        assert_eq!(source(by_columns).walks, std::ptr::eq(b, &column));
                        // One and two output windows; tree and one-pass chunks; the one
                        // pass with an epilogue of the results (rows: 4; columns: 8).
                        let mut gens = Vec::new();
                        for w in [1, 2] {
                            let cols = |chunk, e: Option<&reduce::Epilogue>| {
                                let s = source(by_columns);
                                reduce::column_reduction(op, &s, 8, (4, 1, chunk), w, e, &t).0
                            };
                            let rows = |chunk, e: Option<&reduce::Epilogue>| {
                                let s = source(by_rows);
                                reduce::row_reduction(op, &s, 4, (8, 1, chunk), w, e, &t)
                            };
                            let ep = |n, walk| {
                                epilogue(&source(walk), op, d, (p.outputs.len(), w, n), &t)
                            };
                            gens.extend([
                                rows(reduce::ROW_CHUNK, None),
                                cols(reduce::COLUMN_CHUNK, None),
                                cols(reduce::ONE_PASS, None),
                                rows(reduce::ONE_PASS, Some(&ep(4, by_rows))),
                                cols(reduce::ONE_PASS, Some(&ep(8, by_columns))),
                            ]);
                        }
                        gens.into_iter().map(|g| (g, p.outputs.len()))
                    }) {
                        let src = g.source();
                        if let Err(e) = validate(&src) {
                            panic!("fused {} ({p} outputs) on {d}: {e}\n{src}", op.name());
                        }
                        kernels += 1;
                    }
                }
            }
        }
    }
    assert!(kernels >= 240, "{kernels}");
}

#[test]
fn every_scatter_kernel_validates() {
    for mode in scatter::ScatterMode::ALL {
        for d in DType::ALL {
            // The privatized sums where they apply (8 updates into 8 elements).
            let private = [None, scatter::private_words(mode, d, 8, 8)];
            for windows in [[1, 1, 1], [2, 3, 4]] {
                for p in private
                    .iter()
                    .copied()
                    .collect::<std::collections::BTreeSet<_>>()
                {
                    for uniform in [false, true] {
                        let t = gpu_target();
                        let g =
                            scatter::scatter(mode, d, 8, (0, 8), 0, (1, uniform), windows, p, &t);
                        let source = g.source();
                        if let Err(e) = validate(&source) {
                            panic!("scatter {mode:?} on {d} in {windows:?} ({p:?}, uniform {uniform}): {e}\n{source}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn every_sort_kernel_validates() {
    for d in DType::ALL.into_iter().filter(|&d| widened(d).is_none()) {
        for windows in [1, 3] {
            let t = gpu_target();
            let g = sort::stage(sort::key_dtype(d), 2, 8, 5, 2, 4, windows, &t);
            let source = g.source();
            if let Err(e) = validate(&source) {
                panic!("sort on {d} in {windows} windows: {e}\n{source}");
            }
            // The radix kernels: both layouts, first and later passes, with and
            // without positions.
            for serial in [false, true] {
                let radix = sort::Radix {
                    dtype: d,
                    rows: 2,
                    n: 5000,
                    serial,
                    windows,
                    count_windows: windows.min(2),
                };
                let shift = radix.shifts().last().expect("a pass");
                let mut kernels = vec![radix.count(shift, &t)];
                for (positions, first) in [(false, false), (true, true), (true, false)] {
                    kernels.push(radix.scatter(shift, positions, first, &t));
                }
                for g in kernels {
                    let source = g.source();
                    if let Err(e) = validate(&source) {
                        panic!("radix sort on {d} (serial {serial}): {e}\n{source}");
                    }
                }
            }
        }
    }
}

/// A GPU's target: 128 MiB windows, one `vec4` a thread, emulated float16.
fn gpu_target() -> Target {
    Target {
        f16_native: false,
        window_bytes: 1 << 27,
        vectors: 1,
        written_out: false,
    }
}

/// Every cumulative-sum and -product kernel validates: each phase, dtype, operation,
/// direction and variant (direct, staged through workgroup memory), with the operands in
/// one window, in several, and the input staged into a texture.
#[test]
fn every_cumulative_kernel_validates() {
    use crate::primitive::CumulativeOp;
    for d in [
        DType::Float32,
        DType::Int32,
        DType::UInt32,
        DType::Float16,
        DType::BFloat16,
    ] {
        for op in CumulativeOp::ALL {
            for reverse in [false, true] {
                // Inputs in one window, in several, or staged into a texture.
                for (win_in, windows) in [(1, 1), (3, 3), (TEXTURE, 2)] {
                    let t = gpu_target();
                    for phase in [
                        cumulative::Phase::Totals,
                        cumulative::Phase::Chunks { prefix_windows: 0 },
                        cumulative::Phase::Chunks {
                            prefix_windows: windows,
                        },
                    ] {
                        for variant in [cumulative::Variant::Direct, cumulative::Variant::Staged] {
                            let g = cumulative::kernel(
                                op,
                                d,
                                phase,
                                reverse,
                                (3, 100),
                                win_in,
                                windows,
                                variant,
                                &t,
                            );
                            let source = g.source();
                            if let Err(e) = validate(&source) {
                                panic!("{op:?} {variant:?} scan {phase:?} on {d}: {e}\n{source}");
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Every matmul kernel validates: staged and direct, each dtype, native and emulated
/// float16, one and several windows, each way the direct kernel reads an operand
/// (`vec4`s along `k`, across, elements) and each block size.
#[test]
fn every_matmul_kernel_validates() {
    // [2, d, d] operands: contiguous (k innermost for the left operand), transposed
    // (read across), and a broadcast view at an odd offset (elements).
    let layouts = |d: usize| {
        vec![
            Layout::contiguous(&[2, d, d]),
            Layout {
                shape: vec![2, d, d],
                strides: vec![(d * d) as isize, 1, d as isize],
                offset: 0,
            },
            Layout {
                shape: vec![2, d, d],
                strides: vec![0, 1, d as isize],
                offset: 1,
            },
        ]
    };
    let mut kernels = 0;
    let mut bodies = std::collections::BTreeSet::new();
    for d in DType::ALL.into_iter().filter(|&d| widened(d).is_none()) {
        for f16_native in [false, true] {
            for windows in [1u64, 2, TEXTURE] {
                for variant in [
                    matmul::Variant::Direct,
                    matmul::Variant::Staged,
                    matmul::Variant::Register,
                    matmul::Variant::Subgroup,
                ] {
                    for edge in [8usize, 40, 100, 300, 2100] {
                        // Larger blocks: float32 in one window or a texture, emulated float16.
                        let small =
                            matches!(variant, matmul::Variant::Staged | matmul::Variant::Register)
                                || d != DType::Float32
                                || windows == 2
                                || f16_native;
                        if small && edge > 8 {
                            continue;
                        }
                        let t = Target {
                            f16_native,
                            window_bytes: 1 << 27,
                            vectors: 1,
                            written_out: false,
                        };
                        for a in layouts(edge) {
                            for b in layouts(edge) {
                                let e = edge as u64;
                                let g = matmul::matmul(
                                    d,
                                    &a,
                                    windows,
                                    &b,
                                    windows,
                                    windows.max(1),
                                    (2, e, e, e),
                                    variant,
                                    &t,
                                );
                                let source = g.source();
                                match validate(&source) {
                                    Err(err) => panic!("matmul on {d} ({variant:?}, {a:?} x {b:?}): {err}\n{source}"),
                                    // Subgroup kernels never run on GL (no 8-lane
                                    // subgroups there): the tiled ones are its fallback.
                                    Ok(backends) => assert!(
                                        if variant == matmul::Variant::Subgroup {
                                            !backends.contains(&"glsl")
                                        } else {
                                            f16_native || backends.len() == 4
                                        },
                                        "matmul on {d} ({variant:?}): {backends:?}"
                                    ),
                                }
                                bodies.insert(g.body);
                                kernels += 1;
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(
        kernels > 150 && bodies.len() > 50,
        "{kernels} {}",
        bodies.len()
    );
}

#[test]
fn metadata_reads_become_uniform_reads() {
    let body = "@group(0) @binding(0) var<storage, read> md: array<u32>;\nfn f(i: u32) -> u32 {\n    let xmd = array<u32, 2>(1u, 2u);\n    return md[md[3u] + xmd[1]] + md[B + (i & 1u)];\n}\n";
    let out = uniform_metadata(body);
    assert!(out.contains(&format!(
        "var<uniform> md: array<vec4<u32>, {}>;",
        META_WORDS / 4
    )));
    assert!(
        out.contains("return mdw(mdw(3u) + xmd[1]) + mdw(B + (i & 1u));"),
        "{out}"
    );
    assert!(!out.contains("var<storage, read> md"));
}

#[test]
fn kernels_carry_only_the_helpers_they_call() {
    let names: Vec<&str> = prelude_functions()
        .iter()
        .map(|(n, _)| n.as_str())
        .collect();
    assert!(
        names.contains(&"fmod_f32") && names.contains(&"exp_f32") && names.len() > 30,
        "{names:?}"
    );
    let p = prelude_for("x = exp_f32(y);");
    assert!(p.contains("fn exp_f32(") && p.contains("fn is_nan_f32("));
    assert!(!p.contains("fn fmod_f32("));
}

#[test]
fn every_primitive_has_rules_and_every_kernel_validates() {
    let examples = Primitive::examples();
    let mut covered = vec![false; Primitive::COUNT];
    let mut kernels = 0;
    for prim in &examples {
        covered[prim.variant_index()] = true;
        let arity = match prim.arity() {
            usize::MAX => 3,
            a => a,
        };
        for d in DType::ALL {
            let avals: Vec<Aval> = (0..arity)
                .map(|k| match prim {
                    Primitive::Gather { .. } if k == 1 => {
                        Aval::new(vec![2, 3], DType::Int32, false)
                    }
                    _ => Aval::new(vec![2, 3], d, false),
                })
                .collect();
            let Ok(out) = prim.abstract_eval(&avals) else {
                continue;
            };
            if super::rules::elementwise(prim).is_none() {
                continue;
            }
            let program = Program::new(
                avals.iter().map(|a| a.dtype).collect(),
                vec![Node {
                    prim: prim.clone(),
                    args: (0..arity).collect(),
                    dtype: out.dtype,
                }],
            );
            let contiguous = Layout::contiguous(&[2, 3]);
            let strided = Layout {
                shape: vec![2, 3],
                strides: vec![1, 2],
                offset: 0,
            };
            for f16_native in [false, true] {
                for windows in [1u64, 3, TEXTURE] {
                    for layout in [&contiguous, &strided] {
                        let t = Target {
                            f16_native,
                            window_bytes: 1 << 27,
                            vectors: 1 + 3 * u64::from(f16_native),
                            written_out: f16_native && windows != 3,
                        };
                        let layouts: Vec<&Layout> = (0..arity).map(|_| layout).collect();
                        let mapped = super::rules::input_maps(prim, &layouts, &out.shape);
                        let inputs: Vec<InputDesc<'_>> = mapped
                            .iter()
                            .map(|(layout, map)| InputDesc {
                                layout,
                                windows,
                                map,
                                padded: true,
                            })
                            .collect();
                        let g = elementwise(&program, &inputs, &out.shape, &t).unwrap();
                        let source = g.source();
                        match validate(&source) {
                            Err(e) => panic!("{} on {d} (f16 native {f16_native}, {windows} windows): {e}\n{source}", prim.name()),
                            // Emulated float16 is the GL fallback: it must reach GLSL.
                            Ok(b) => assert!(f16_native || b.len() == 4, "{} on {d}: {b:?}", prim.name()),
                        }
                        kernels += 1;
                    }
                }
            }
        }
    }
    assert!(
        covered.iter().all(|&c| c),
        "a primitive has no example: {covered:?}"
    );
    assert!(kernels > 100, "{kernels}");
}

/// The register-blocked matmul runs where the options ask for workgroup tiles and register
/// tiles, and only on products of at least 128 rows and columns.
#[test]
fn register_tiles_are_chosen_where_asked_and_where_they_fit() {
    use matmul::Variant;
    let caps = |cpu: bool, register: Option<bool>| Capabilities {
        cpu,
        subgroup_sizes: None,
        workgroup_tiles: None,
        subgroups: None,
        register_tiles: register,
    };
    assert_eq!(Variant::choose(&caps(false, None)), Variant::Staged);
    assert_eq!(Variant::choose(&caps(false, Some(false))), Variant::Staged);
    assert_eq!(Variant::choose(&caps(false, Some(true))), Variant::Register);
    assert_eq!(Variant::choose(&caps(true, Some(true))), Variant::Direct);
    let r = Variant::Register;
    assert_eq!(r.for_product(128, 128), Variant::Register);
    assert_eq!(r.for_product(127, 4096), Variant::Staged);
    assert_eq!(r.for_product(4096, 127), Variant::Staged);
    assert_eq!(Variant::Staged.for_product(4096, 4096), Variant::Staged);
    assert_eq!(Variant::Direct.for_product(4096, 4096), Variant::Direct);
}

/// Broadcast operands validate for every dtype, float16 mode and binding kind, read
/// without the strided path: an operand repeated along its leading dimension (`strides
/// [0, 1]`) as a run, as whole `vec4`s where the run and its offset allow, element by
/// element elsewhere; one spread along its trailing dimension (`strides [1, 0]`) element
/// by element, or one element per vector where each is repeated a multiple of 4 times;
/// blocks repeated along a middle dimension (`strides [8, 0, 1]`) as tiles, as `vec4`s
/// where blocks and offset are whole vectors.
#[test]
fn broadcast_operands_validate_as_vectors_and_elements() {
    use crate::primitive::BinaryOp;
    let (mut runs, mut tiles) = (0, 0);
    let cases: [(&[usize], usize, &[isize], &str); 9] = [
        (&[2, 4], 0, &[0, 1], "run"),
        (&[2, 4], 1, &[0, 1], "run"),
        (&[2, 4], 4, &[0, 1], "run"),
        (&[2, 4], 3, &[1, 0], "spread"),
        (&[2, 3, 8], 0, &[8, 0, 1], "tile"),
        (&[2, 3, 8], 1, &[8, 0, 1], "tile"),
        (&[2, 3, 8], 4, &[8, 0, 1], "tile"),
        (&[2, 3, 8], 0, &[1, 0, 0], "vector spread"),
        (&[2, 3, 8], 3, &[1, 0, 0], "vector spread"),
    ];
    for d in DType::ALL {
        for &(shape, offset, strides, access) in &cases {
            let prim = Primitive::Binary(BinaryOp::Max);
            let operand = Aval::new(shape.to_vec(), d, false);
            let Ok(out) = prim.abstract_eval(&[operand.clone(), operand]) else {
                continue;
            };
            let program = Program::new(
                vec![d, d],
                vec![Node {
                    prim,
                    args: vec![0, 1],
                    dtype: out.dtype,
                }],
            );
            let full = Layout::contiguous(shape);
            let broadcast = Layout {
                shape: shape.to_vec(),
                strides: strides.to_vec(),
                offset,
            };
            for f16_native in [false, true] {
                for windows in [1u64, 3, TEXTURE] {
                    let t = Target {
                        f16_native,
                        window_bytes: 1 << 27,
                        vectors: 1,
                        written_out: false,
                    };
                    let inputs: Vec<InputDesc<'_>> = [&full, &broadcast]
                        .iter()
                        .map(|l| InputDesc {
                            layout: l,
                            windows,
                            map: &InputMap::Plain,
                            padded: true,
                        })
                        .collect();
                    let g = elementwise(&program, &inputs, shape, &t).unwrap();
                    let source = g.source();
                    assert!(!source.contains("fn off1("), "{access}: {source}");
                    if access == "vector spread" {
                        assert!(source.contains("let s1 = ld1(t * 4u)"), "{source}");
                    }
                    runs += usize::from(access == "run" && source.contains("(t % "));
                    tiles += usize::from(access == "tile" && source.contains("let v1 = in1(t / "));
                    if let Err(e) = validate(&source) {
                        panic!("max on {d} with a {access} at offset {offset}: {e}\n{source}");
                    }
                }
            }
        }
    }
    assert!(runs > 10 && tiles > 10, "{runs} {tiles}");
}

/// Which layouts read as a repeated run or as spread elements, and which stay strided.
#[test]
fn repeated_runs_and_spreads_are_recognised_exactly() {
    let l = |shape: &[usize], strides: &[isize], offset: usize| Layout {
        shape: shape.to_vec(),
        strides: strides.to_vec(),
        offset,
    };
    assert_eq!(repeated_run(&l(&[3, 4], &[0, 1], 5)), Some(4));
    assert_eq!(repeated_run(&l(&[2, 3, 4], &[0, 4, 1], 0)), Some(12));
    assert_eq!(repeated_run(&l(&[2, 1, 4], &[0, 7, 1], 0)), Some(4));
    assert_eq!(repeated_run(&l(&[2, 3, 4], &[0, 0, 1], 0)), Some(4));
    // A leading dimension that moves, a transposed run, a reversed one, one repeat.
    assert_eq!(repeated_run(&l(&[2, 3, 4], &[12, 0, 1], 0)), None);
    assert_eq!(repeated_run(&l(&[3, 4], &[0, 3], 0)), None);
    assert_eq!(repeated_run(&l(&[3, 4], &[0, -1], 3)), None);
    assert_eq!(repeated_run(&l(&[1, 4], &[0, 1], 0)), None);
    assert_eq!(repeated_run(&l(&[3, 0], &[0, 1], 0)), None);
    assert_eq!(spread_elements(&l(&[4, 3], &[1, 0], 2)), Some(3));
    assert_eq!(
        spread_elements(&l(&[2, 4, 3, 5], &[4, 1, 0, 0], 0)),
        Some(15)
    );
    assert_eq!(spread_elements(&l(&[4, 3], &[2, 0], 0)), None);
    assert_eq!(spread_elements(&l(&[4, 3], &[-1, 0], 3)), None);
    assert_eq!(spread_elements(&l(&[2, 3], &[-1, 0], 1)), None);
    assert_eq!(spread_elements(&l(&[4, 1], &[1, 0], 0)), None);
    assert_eq!(spread_elements(&l(&[4, 3], &[0, 0], 0)), None);
    assert_eq!(tiled_run(&l(&[2, 3, 4], &[4, 0, 1], 0)), Some((4, 12)));
    assert_eq!(
        tiled_run(&l(&[2, 1, 3, 4], &[4, 9, 0, 1], 5)),
        Some((4, 12))
    );
    assert_eq!(
        tiled_run(&l(&[5, 2, 3, 4], &[8, 4, 0, 1], 0)),
        Some((4, 12))
    );
    assert_eq!(
        tiled_run(&l(&[2, 3, 2, 4], &[4, 0, 0, 1], 0)),
        Some((4, 24))
    );
    assert_eq!(
        tiled_run(&l(&[2, 3, 2, 4], &[8, 0, 4, 1], 0)),
        Some((8, 24))
    );
    // Blocks with gaps between them, a run with gaps, no repeats, no second block, a
    // reversed run, a repeat of single elements (a spread), blocks out of order.
    assert_eq!(tiled_run(&l(&[2, 3, 4], &[12, 0, 1], 0)), None);
    assert_eq!(tiled_run(&l(&[2, 3, 4], &[4, 0, 2], 0)), None);
    assert_eq!(tiled_run(&l(&[2, 3, 4], &[12, 4, 1], 0)), None);
    assert_eq!(tiled_run(&l(&[2, 3, 4], &[0, 0, 1], 0)), None);
    assert_eq!(tiled_run(&l(&[1, 3, 4], &[4, 0, 1], 0)), None);
    assert_eq!(tiled_run(&l(&[2, 3, 4], &[4, 0, -1], 3)), None);
    assert_eq!(tiled_run(&l(&[4, 3, 1], &[1, 0, 1], 0)), None);
    assert_eq!(tiled_run(&l(&[2, 2, 3, 4], &[4, 8, 0, 1], 0)), None);
}

/// A two-word element (the test dtype, complex64's storage) generates valid kernels for
/// every backend: each access (contiguous, run, spread, splat, strided), one window,
/// several and a texture, written-out and looped vectors, one output and two.
#[test]
fn two_word_element_kernels_validate() {
    use crate::primitive::{BinaryOp, Literal};
    let d = DType::TestPair;
    let add = |a, b| Node {
        prim: Primitive::Binary(BinaryOp::Add),
        args: vec![a, b],
        dtype: d,
    };
    let full = Node {
        prim: Primitive::Full {
            shape: vec![3, 4],
            value: Literal::Pair([1.0, -2.0]),
        },
        args: vec![],
        dtype: d,
    };
    let one = Program::new(vec![d, d], vec![full.clone(), add(0, 1), add(3, 2)]);
    let mut two = one.clone();
    two.outputs = vec![3, 4];
    let contiguous = Layout::contiguous(&[3, 4]);
    let layout = |strides: [isize; 2], offset| Layout {
        shape: vec![3, 4],
        strides: strides.to_vec(),
        offset,
    };
    // Contiguous; a row repeated over rows, a column spread across columns, a scalar, a
    // transpose.
    let layouts = [
        Layout::contiguous(&[3, 4]),
        layout([0, 1], 1),
        layout([1, 0], 0),
        layout([0, 0], 5),
        layout([1, 3], 0),
    ];
    for program in [&one, &two] {
        for layout in &layouts {
            for windows in [1u64, 3, TEXTURE] {
                for (vectors, written_out) in [(1, false), (4, false), (4, true)] {
                    let t = Target {
                        f16_native: false,
                        window_bytes: 1 << 27,
                        vectors,
                        written_out,
                    };
                    let inputs: Vec<InputDesc<'_>> = [&contiguous, layout]
                        .iter()
                        .map(|l| InputDesc {
                            layout: l,
                            windows,
                            map: &InputMap::Plain,
                            padded: true,
                        })
                        .collect();
                    let g = elementwise(program, &inputs, &[3, 4], &t).unwrap();
                    let source = g.source();
                    assert!(source.contains("array<vec2<f32>, 4>"), "{source}");
                    assert!(!source.contains("vec4<vec2"), "{source}");
                    // Contiguous operands read `i + offset`, with no strided offset.
                    let strided = layout.strides == [1, 3];
                    assert_eq!(source.contains("fn off1("), strided, "{source}");
                    assert!(!source.contains("fn off0("), "{source}");
                    if let Err(e) = validate(&source) {
                        panic!("{layout:?} in {windows} windows: {e}\n{source}");
                    }
                }
            }
        }
    }
}
