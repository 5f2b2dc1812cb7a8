//! `einsum` and `einsum_path`: subscripts with ellipses and size-1 broadcasting, the
//! contraction-path optimizers JAX uses (opt_einsum's greedy, optimal and branch-and-bound
//! searches, chosen by operand count as its `"auto"` does, so that a ported program
//! contracts in the same order), and the pairwise contractions through the matmul kernel.

use std::collections::HashMap;
use std::fmt;

use super::einsum_paths::{choose_path, EinsumOptimize, Key, Net};
use super::linalg::diag_impl;
use super::overrides::overridable;
use crate::array::Array;
use crate::convert::{operand, ArrayLike};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::lax;
use crate::primitive::ReduceOp;

/// One step of an [`EinsumPath`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EinsumStep {
    /// The positions contracted, in the list of operands left before this step.
    pub positions: Vec<usize>,
    /// The labels this step loops over.
    pub scaling: usize,
    /// Multiply-adds (or additions) this step costs, as opt_einsum counts them.
    pub flops: u128,
    /// This step as a subscripts string (`"kl,jk->jl"`).
    pub subscripts: String,
    /// The contraction left after this step (`"ij,jl->il"`).
    pub remaining: String,
}

/// The order [`einsum_path`] chose, with opt_einsum's cost figures; `Display` prints the
/// report JAX's `einsum_path` returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EinsumPath {
    /// The steps' positions: pass `EinsumOptimize::Path(path)` to [`einsum_with`].
    pub path: Vec<Vec<usize>>,
    /// The whole contraction, ellipses replaced by labels (`"ij,jk,kl->il"`).
    pub subscripts: String,
    /// The labels of the whole contraction.
    pub naive_scaling: usize,
    /// The most labels one step loops over.
    pub optimized_scaling: usize,
    /// Flops of one loop over every label.
    pub naive_flops: u128,
    /// Flops of the steps together.
    pub optimized_flops: u128,
    /// Elements of the largest intermediate (or of the output).
    pub largest_intermediate: u128,
    /// The steps in order.
    pub steps: Vec<EinsumStep>,
}

impl fmt::Display for EinsumPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let speedup = self.naive_flops as f64 / self.optimized_flops.max(1) as f64;
        writeln!(f, "  Complete contraction:  {}", self.subscripts)?;
        writeln!(f, "         Naive scaling:  {}", self.naive_scaling)?;
        writeln!(f, "     Optimized scaling:  {}", self.optimized_scaling)?;
        writeln!(
            f,
            "      Naive FLOP count:  {}",
            sci(self.naive_flops as f64)
        )?;
        writeln!(
            f,
            "  Optimized FLOP count:  {}",
            sci(self.optimized_flops as f64)
        )?;
        writeln!(f, "   Theoretical speedup:  {}", sci(speedup))?;
        writeln!(
            f,
            "  Largest intermediate:  {} elements",
            sci(self.largest_intermediate as f64)
        )?;
        writeln!(f, "{}", "-".repeat(80))?;
        writeln!(f, "{:>7} {:>22} {:>37}", "scaling", "current", "remaining")?;
        write!(f, "{}", "-".repeat(80))?;
        for s in &self.steps {
            write!(
                f,
                "\n{:>4} {:>25}    {:>37}",
                s.scaling, s.subscripts, s.remaining
            )?;
        }
        Ok(())
    }
}

/// Python's `{:.3e}` (`9.000e+3`).
fn sci(x: f64) -> String {
    let s = format!("{x:.3e}");
    match s.split_once('e') {
        Some((m, e)) if !e.starts_with('-') => format!("{m}e+{e}"),
        _ => s,
    }
}

/// Parsed subscripts: each operand's labels (ellipses expanded), the output's, and each
/// label's size (the largest of its axes: size-1 axes broadcast).
struct Spec {
    inputs: Vec<Vec<char>>,
    output: Vec<char>,
    sizes: HashMap<char, usize>,
}

impl Spec {
    fn text(&self) -> String {
        let ins: Vec<String> = self.inputs.iter().map(|l| l.iter().collect()).collect();
        format!(
            "{}->{}",
            ins.join(","),
            self.output.iter().collect::<String>()
        )
    }
}

/// The labels opt_einsum gives ellipsis axes: letters the subscripts do not use, in
/// order, then characters from U+00C0 on.
fn unused_labels(used: &[char], n: usize) -> Vec<char> {
    ('a'..='z')
        .chain('A'..='Z')
        .chain((0xC0u32..0x2000).filter_map(char::from_u32))
        .filter(|c| !used.contains(c))
        .take(n)
        .collect()
}

fn parse(func: &str, subscripts: &str, shapes: &[&[usize]]) -> Result<Spec> {
    let spec: String = subscripts.chars().filter(|c| !c.is_whitespace()).collect();
    if let Some(c) = spec
        .chars()
        .find(|c| !c.is_ascii_alphabetic() && !",->.".contains(*c))
    {
        return Err(Error::arg(
            func,
            format!("invalid subscript character {c:?} in \"{subscripts}\""),
        ));
    }
    let (lhs, rhs) = match spec.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (spec.as_str(), None),
    };
    if lhs.contains(['-', '>']) || rhs.is_some_and(|r| r.contains(['-', '>', ','])) {
        return Err(Error::arg(
            func,
            format!("subscripts \"{subscripts}\" are malformed"),
        ));
    }
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != shapes.len() {
        return Err(Error::arg(
            func,
            format!(
                "\"{subscripts}\" names {} operands, got {}",
                terms.len(),
                shapes.len()
            ),
        ));
    }
    // Each term: its labels before and after an ellipsis.
    let split = |t: &str| -> Result<(Vec<char>, Option<Vec<char>>)> {
        let parts: Vec<&str> = t.split("...").collect();
        if parts.len() > 2 || parts.iter().any(|p| p.contains('.')) {
            return Err(Error::arg(
                func,
                format!("\"{t}\" in \"{subscripts}\": '.' only as one '...'"),
            ));
        }
        Ok((
            parts[0].chars().collect(),
            parts.get(1).map(|p| p.chars().collect()),
        ))
    };
    let parsed: Vec<(Vec<char>, Option<Vec<char>>)> =
        terms.iter().map(|t| split(t)).collect::<Result<_>>()?;
    let mut longest = 0;
    for (t, ((head, tail), shape)) in parsed.iter().zip(shapes).enumerate() {
        let named = head.len() + tail.as_ref().map_or(0, Vec::len);
        let fits = match tail {
            Some(_) => named <= shape.len(),
            None => named == shape.len(),
        };
        if !fits {
            return Err(Error::shape(
                func,
                &[shape],
                format!(
                    "subscripts \"{}\" name {named} axes of operand {t}, which has {}",
                    terms[t],
                    shape.len()
                ),
            ));
        }
        if tail.is_some() {
            longest = longest.max(shape.len() - named);
        }
    }
    // As opt_einsum: as many fresh labels as the most axes of any operand, of which each
    // ellipsis takes the last ones it needs.
    let used: Vec<char> = spec.chars().filter(char::is_ascii_alphabetic).collect();
    let most = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let fresh = unused_labels(&used, most);
    if fresh.len() < most {
        return Err(Error::arg(func, "too many axes under '...'"));
    }
    let ell = fresh[most - longest..].to_vec();
    let inputs: Vec<Vec<char>> = parsed
        .iter()
        .zip(shapes)
        .map(|((head, tail), shape)| match tail {
            None => head.clone(),
            Some(tail) => {
                let k = shape.len() - head.len() - tail.len();
                [head.as_slice(), &ell[longest - k..], tail.as_slice()].concat()
            }
        })
        .collect();
    let mut sizes: HashMap<char, usize> = HashMap::new();
    for (labels, shape) in inputs.iter().zip(shapes) {
        for (&c, &s) in labels.iter().zip(shape.iter()) {
            let e = sizes.entry(c).or_insert(s);
            if *e == 1 {
                *e = s;
            } else if s != 1 && s != *e {
                return Err(Error::shape(
                    func,
                    shapes,
                    format!("label {c:?} has sizes {} and {s}", *e),
                ));
            }
        }
    }
    let output: Vec<char> = match rhs {
        Some(r) => {
            let (head, tail) = split(r)?;
            match tail {
                Some(tail) => [head, ell.clone(), tail].concat(),
                None => head,
            }
        }
        None => {
            let all: Vec<char> = inputs.iter().flatten().copied().collect();
            let mut once: Vec<char> = all
                .iter()
                .copied()
                .filter(|c| !ell.contains(c) && all.iter().filter(|d| *d == c).count() == 1)
                .collect();
            once.sort_unstable();
            [ell.clone(), once].concat()
        }
    };
    for (i, c) in output.iter().enumerate() {
        if !sizes.contains_key(c) {
            return Err(Error::arg(
                func,
                format!("output label {c:?} is not in any operand"),
            ));
        }
        if output[..i].contains(c) {
            return Err(Error::arg(
                func,
                format!("output label {c:?} appears twice"),
            ));
        }
    }
    Ok(Spec {
        inputs,
        output,
        sizes,
    })
}

/// The report of `path` over `spec`, as opt_einsum's `contract_path` builds it.
fn report(spec: &Spec, net: &Net, labels: &[char], path: Vec<Vec<usize>>) -> EinsumPath {
    let key_of = |ls: &[char]| -> Key {
        ls.iter()
            .map(|c| 1u128 << labels.binary_search(c).expect("label"))
            .fold(0, |a, b| a | b)
    };
    let all = net.inputs.iter().fold(0, |a, &k| a | k);
    let inner = net.inputs.iter().map(|k| k.count_ones()).sum::<u32>() > all.count_ones();
    let naive_flops = net.flops(all, inner, net.inputs.len());
    let mut sets = net.inputs.clone();
    let mut terms: Vec<String> = spec.inputs.iter().map(|l| l.iter().collect()).collect();
    let out: String = spec.output.iter().collect();
    let mut steps = Vec::new();
    let mut largest: Option<u128> = None;
    let last = path.len().saturating_sub(1);
    for (s, step) in path.iter().enumerate() {
        let mut pos = step.clone();
        pos.sort_unstable_by(|a, b| b.cmp(a));
        let taken: Vec<Key> = pos.iter().map(|&p| sets.remove(p)).collect();
        let contract = taken.iter().fold(0, |a, &k| a | k);
        let keep = sets.iter().fold(net.output, |a, &k| a | k);
        let result = keep & contract;
        let removed = contract & !result;
        let flops = net.flops(contract, removed != 0, pos.len());
        largest = Some(largest.unwrap_or(0).max(net.size(result)));
        sets.push(result);
        let tmp: Vec<String> = pos.iter().map(|&p| terms.remove(p)).collect();
        let idx = if s == last {
            out.clone()
        } else {
            // tensordot's order: as the labels first appear in the operands.
            let joined: String = tmp.concat();
            let mut r: Vec<char> = joined
                .chars()
                .filter(|c| result & key_of(&[*c]) != 0)
                .collect();
            let mut seen = Vec::new();
            r.retain(|c| {
                let fresh = !seen.contains(c);
                seen.push(*c);
                fresh
            });
            r.into_iter().collect()
        };
        let subscripts = format!("{}->{idx}", tmp.join(","));
        terms.push(idx);
        steps.push(EinsumStep {
            positions: step.clone(),
            scaling: contract.count_ones() as usize,
            flops,
            subscripts,
            remaining: format!("{}->{out}", terms.join(",")),
        });
    }
    EinsumPath {
        path,
        subscripts: spec.text(),
        naive_scaling: all.count_ones() as usize,
        optimized_scaling: steps.iter().map(|s| s.scaling).max().unwrap_or(0),
        naive_flops,
        optimized_flops: steps.iter().fold(0u128, |a, s| a.saturating_add(s.flops)),
        largest_intermediate: largest.unwrap_or(1),
        steps,
    }
}

/// The order in which [`einsum_with`] would contract `operands` under `optimize`, with
/// opt_einsum's flop and size estimates, as `jnp.einsum_path` returns them (JAX's
/// default optimizer is [`EinsumOptimize::Auto`]). Only the operands' shapes are used.
///
/// ```
/// use olympus::numpy as np;
/// let x = np::ones(&[2, 3], np::DType::Float32)?;
/// let y = np::ones(&[3, 100], np::DType::Float32)?;
/// let z = np::ones(&[100, 5], np::DType::Float32)?;
/// let p = np::einsum_path("ij,jk,kl", [&x, &y, &z], np::EinsumOptimize::Optimal)?;
/// assert_eq!(p.path, vec![vec![1, 2], vec![0, 1]]);
/// assert_eq!((p.naive_flops, p.optimized_flops), (9000, 3060));
/// println!("{p}");
/// let w = np::einsum_with("ij,jk,kl", [&x, &y, &z], np::EinsumOptimize::Path(p.path))?;
/// assert_eq!(w.to_vec::<f32>()?, vec![300.0; 10]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn einsum_path<A: ArrayLike>(
    subscripts: &str,
    operands: impl IntoIterator<Item = A>,
    optimize: EinsumOptimize,
) -> Result<EinsumPath> {
    let func = "einsum_path";
    let xs = arrays(func, operands)?;
    let shapes: Vec<&[usize]> = xs.iter().map(Array::shape).collect();
    let spec = parse(func, subscripts, &shapes)?;
    let (net, labels) = net_of(func, &spec)?;
    let path = choose_path(func, &net, &optimize)?;
    Ok(report(&spec, &net, &labels, path))
}

fn arrays<A: ArrayLike>(func: &str, operands: impl IntoIterator<Item = A>) -> Result<Vec<Array>> {
    let ops: Vec<crate::convert::Operand> = operands
        .into_iter()
        .enumerate()
        .map(|(i, a)| operand(func, i, a))
        .collect::<Result<_>>()?;
    if ops.is_empty() {
        return Err(Error::arg(func, "needs at least one operand"));
    }
    super::promote(func, ops, false)
}

/// Einstein summation over one or more operands, with explicit (`"ij,jk->ik"`) or
/// implicit (`"ij,jk"`: the labels that appear once, sorted) output, as `jnp.einsum`:
/// matmul, batched matmul, transposes, traces and diagonals (repeated labels), outer
/// products, sums over axes, `...` for leading or trailing axes (broadcast against each
/// other; summed where the explicit output omits them), and axes of size 1 broadcast
/// against their label's size. Operands are contracted pairwise through the matmul kernel
/// in the order JAX chooses by default ([`EinsumOptimize::Auto`]; see [`einsum_with`]).
///
/// ```
/// use olympus::numpy as np;
/// let a = np::reshape(np::arange(6)?, &[2, 3])?;
/// let b = np::reshape(np::arange(12)?, &[3, 4])?;
/// let c = np::einsum("ij,jk->ik", [&a, &b])?;
/// assert_eq!(c.to_vec::<i32>()?, np::matmul(&a, &b)?.to_vec::<i32>()?);
/// assert_eq!(np::einsum("ii", [np::eye(3, None, 0, np::DType::Int32)?])?.item::<i32>()?, 3);
/// assert_eq!(np::einsum("ij->j", [&a])?.to_vec::<i32>()?, vec![3, 5, 7]);
/// let batch = np::ones(&[5, 2, 3], np::DType::Int32)?;
/// assert_eq!(np::einsum("...ij,jk->...ik", [&batch, &b])?.shape(), &[5, 2, 4]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn einsum<A: ArrayLike>(
    subscripts: &str,
    operands: impl IntoIterator<Item = A>,
) -> Result<Array> {
    overridable!("einsum"; [list operands]; [subscripts]);
    einsum_impl("einsum", subscripts, operands, &EinsumOptimize::Auto)
}

/// [`einsum`] contracting in the order `optimize` chooses or gives (JAX's `optimize`).
pub fn einsum_with<A: ArrayLike>(
    subscripts: &str,
    operands: impl IntoIterator<Item = A>,
    optimize: EinsumOptimize,
) -> Result<Array> {
    overridable!("einsum_with"; [list operands]; [subscripts, optimize]);
    einsum_impl("einsum_with", subscripts, operands, &optimize)
}

fn einsum_impl<A: ArrayLike>(
    func: &str,
    subscripts: &str,
    operands: impl IntoIterator<Item = A>,
    optimize: &EinsumOptimize,
) -> Result<Array> {
    let xs = arrays(func, operands)?;
    let shapes: Vec<&[usize]> = xs.iter().map(Array::shape).collect();
    let spec = parse(func, subscripts, &shapes)?;
    let (net, _) = net_of(func, &spec)?;
    let path = choose_path(func, &net, optimize)?;
    // Axes of size 1 whose label is larger elsewhere broadcast: drop them (the other
    // operands carry the label).
    let mut terms: Vec<(Vec<char>, Array)> = Vec::new();
    for (labels, x) in spec.inputs.iter().zip(&xs) {
        let keep: Vec<usize> = (0..labels.len())
            .filter(|&i| !(x.shape()[i] == 1 && spec.sizes[&labels[i]] != 1))
            .collect();
        if keep.len() == labels.len() {
            terms.push((labels.clone(), x.clone()));
        } else {
            let shape: Vec<usize> = keep.iter().map(|&i| x.shape()[i]).collect();
            terms.push((
                keep.iter().map(|&i| labels[i]).collect(),
                lax::reshape(x, &shape)?,
            ));
        }
    }
    for step in &path {
        let mut pos = step.clone();
        pos.sort_unstable_by(|a, b| b.cmp(a));
        let mut taken: Vec<(Vec<char>, Array)> = pos.iter().map(|&p| terms.remove(p)).collect();
        let rest: Vec<char> = terms
            .iter()
            .flat_map(|(l, _)| l.iter().copied())
            .chain(spec.output.iter().copied())
            .collect();
        let mut acc = taken.remove(0);
        for (t, next) in taken.iter().enumerate() {
            let keep: Vec<char> = rest
                .iter()
                .copied()
                .chain(taken[t + 1..].iter().flat_map(|(l, _)| l.iter().copied()))
                .collect();
            let a = simplify(acc.0, acc.1, &[keep.clone(), next.0.clone()].concat())?;
            let b = simplify(
                next.0.clone(),
                next.1.clone(),
                &[keep.clone(), a.0.clone()].concat(),
            )?;
            acc = pair(a, b, &keep)?;
        }
        terms.push(simplify(acc.0, acc.1, &rest)?);
    }
    // Sum the labels not in the output, then transpose into its order.
    let (labels, x) = terms.pop().expect("the path leaves one operand");
    let (labels, x) = simplify(labels, x, &spec.output)?;
    let perm: Vec<usize> = spec
        .output
        .iter()
        .map(|c| {
            labels
                .iter()
                .position(|d| d == c)
                .expect("output labels survive")
        })
        .collect();
    lax::transpose(&x, &perm)
}

/// Takes diagonals of repeated labels and sums labels not in `keep`.
fn simplify(mut labels: Vec<char>, mut x: Array, keep: &[char]) -> Result<(Vec<char>, Array)> {
    // Repeated labels: take the diagonal (appended last), until labels are distinct.
    while let Some((i, j)) = (0..labels.len()).find_map(|i| {
        (i + 1..labels.len())
            .find(|&j| labels[j] == labels[i])
            .map(|j| (i, j))
    }) {
        let c = labels[i];
        x = diag_impl("einsum", &x, 0, i as isize, j as isize)?;
        labels = labels
            .iter()
            .enumerate()
            .filter(|(k, _)| *k != i && *k != j)
            .map(|(_, &l)| l)
            .collect();
        labels.push(c);
    }
    let drop: Vec<usize> = (0..labels.len())
        .filter(|&i| !keep.contains(&labels[i]))
        .collect();
    if !drop.is_empty() {
        let xs = if x.dtype() == DType::Bool {
            x.astype(DType::Int32)?
        } else {
            x
        };
        x = lax::reduce(ReduceOp::Sum, &xs, &drop)?;
        labels = labels
            .iter()
            .enumerate()
            .filter(|(k, _)| !drop.contains(k))
            .map(|(_, &l)| l)
            .collect();
    }
    Ok((labels, x))
}

/// Contracts two terms with distinct labels: labels in both and kept are batch, in both
/// and not kept are contracted, the rest free; one batched matmul.
fn pair(a: (Vec<char>, Array), b: (Vec<char>, Array), keep: &[char]) -> Result<(Vec<char>, Array)> {
    let (la, xa) = a;
    let (lb, xb) = b;
    let batch: Vec<char> = la
        .iter()
        .copied()
        .filter(|c| lb.contains(c) && keep.contains(c))
        .collect();
    let con: Vec<char> = la
        .iter()
        .copied()
        .filter(|c| lb.contains(c) && !keep.contains(c))
        .collect();
    let fa: Vec<char> = la.iter().copied().filter(|c| !lb.contains(c)).collect();
    let fb: Vec<char> = lb.iter().copied().filter(|c| !la.contains(c)).collect();
    let pos = |l: &[char], cs: &[char]| -> Vec<usize> {
        cs.iter()
            .map(|c| l.iter().position(|d| d == c).expect("label present"))
            .collect()
    };
    let dims = |x: &Array, l: &[char], cs: &[char]| -> Vec<usize> {
        pos(l, cs).iter().map(|&i| x.shape()[i]).collect()
    };
    let (nb, m, k, n) = (
        dims(&xa, &la, &batch).iter().product(),
        dims(&xa, &la, &fa).iter().product(),
        dims(&xa, &la, &con).iter().product(),
        dims(&xb, &lb, &fb).iter().product(),
    );
    let pa: Vec<usize> = [pos(&la, &batch), pos(&la, &fa), pos(&la, &con)].concat();
    let pb: Vec<usize> = [pos(&lb, &batch), pos(&lb, &con), pos(&lb, &fb)].concat();
    let a3 = lax::reshape(&lax::transpose(&xa, &pa)?, &[nb, m, k])?;
    let b3 = lax::reshape(&lax::transpose(&xb, &pb)?, &[nb, k, n])?;
    let r = lax::batch_matmul(&a3, &b3)?;
    let shape = [
        dims(&xa, &la, &batch),
        dims(&xa, &la, &fa),
        dims(&xb, &lb, &fb),
    ]
    .concat();
    Ok(([batch, fa, fb].concat(), lax::reshape(&r, &shape)?))
}

/// The path optimizers' view of `spec`, and its labels in bit order.
fn net_of(func: &str, spec: &Spec) -> Result<(Net, Vec<char>)> {
    let mut labels: Vec<char> = spec.inputs.iter().flatten().copied().collect();
    labels.sort_unstable();
    labels.dedup();
    if labels.len() > 128 {
        return Err(Error::arg(func, "more than 128 distinct labels"));
    }
    let key = |ls: &[char]| -> Key {
        ls.iter()
            .map(|c| 1u128 << labels.binary_search(c).expect("label listed"))
            .fold(0, |a, b| a | b)
    };
    let net = Net {
        inputs: spec.inputs.iter().map(|l| key(l)).collect(),
        output: key(&spec.output),
        sizes: labels.iter().map(|c| spec.sizes[c] as u128).collect(),
    };
    Ok((net, labels))
}
