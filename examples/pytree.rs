//! Pytrees: an MLP's parameters as a nested structure (a `Vec` of layers, each a struct
//! `{w, b}` with a static `activation`), one SGD step with `tree_map2`, weight decay on the
//! weights only with `tree_map_with_path`, the `TreeDef` and the key paths.

use olympus::tree::{self, KeyEntry};
use olympus::{numpy as np, Array, DType};

/// One dense layer: `activation(x @ w + b)`.
#[derive(Clone, Debug)]
struct Dense {
    w: Array,
    b: Array,
    activation: String,
}
olympus::register_pytree!(Dense { w, b, #[static] activation });

/// The model: its layers, and a static step count (a Rust scalar: static, not a leaf).
struct Mlp {
    layers: Vec<Dense>,
    step: u32,
}
olympus::register_pytree!(Mlp { layers, step });

fn init(sizes: &[usize], fill: f32) -> olympus::Result<Mlp> {
    let layers = sizes
        .windows(2)
        .enumerate()
        .map(|(i, io)| {
            Ok(Dense {
                w: np::full(&[io[0], io[1]], fill, Some(DType::Float32))?,
                b: np::zeros(&[io[1]], DType::Float32)?,
                activation: if i + 2 < sizes.len() {
                    "relu"
                } else {
                    "identity"
                }
                .to_string(),
            })
        })
        .collect::<olympus::Result<Vec<_>>>()?;
    Ok(Mlp { layers, step: 0 })
}

fn main() -> olympus::Result<()> {
    let params = init(&[3, 4, 2], 1.0)?;
    let grads = init(&[3, 4, 2], 0.5)?;

    let (leaves, def) = tree::tree_flatten(&params);
    println!("{def}");
    println!(
        "{} leaves, {} nodes; same structure as the gradients: {}",
        def.num_leaves(),
        def.num_nodes(),
        def == tree::tree_structure(&grads)
    );
    for (path, leaf) in tree::tree_leaves_with_path(&params) {
        println!("  {path:<14} shape {:?}", leaf.shape());
    }
    assert_eq!(leaves.len(), 4);

    // One SGD step: p - 0.1 * g on every leaf; `activation` and `step` carry over.
    let mut params: Mlp = tree::tree_map2(
        |p, g| np::subtract(p, np::multiply(g, 0.1)?),
        &params,
        &grads,
    )?;
    params.step += 1;
    println!("after one SGD step: w[0] = {:?}", params.layers[0].w);

    // Weight decay on the weights only, chosen by key path (the last entry is `.w`).
    let params: Mlp = tree::tree_map_with_path(
        |path, x| {
            if path.last() == Some(&KeyEntry::Field("w".into())) {
                np::multiply(x, 0.99)
            } else {
                Ok(x.clone())
            }
        },
        &params,
    )?;
    println!("after weight decay: b[1] = {:?}", params.layers[1].b);
    println!("{}", tree::tree_structure(&params));

    // Total number of parameters, and a mismatched structure's error.
    let count = tree::tree_reduce(|n, x| Ok(n + x.size()), &params, 0)?;
    println!("{count} parameters");
    let wrong = init(&[3, 4, 4, 2], 0.5)?;
    if let Err(err) = tree::tree_map2(|p, g| np::subtract(p, g), &params, &wrong) {
        println!("mismatch: {err}");
    }
    Ok(())
}
