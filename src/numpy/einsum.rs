//! `einsum` and `einsum_path`: subscripts with ellipses and size-1 broadcasting, the
//! contraction-path optimizers JAX uses (opt_einsum's greedy, optimal and branch-and-bound
//! searches, chosen by operand count as its `"auto"` does, so that a ported program
//! contracts in the same order), and the pairwise contractions through the matmul kernel.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fmt;

use super::linalg::diag_impl;
use super::overrides::overridable;
use crate::array::Array;
use crate::convert::{operand, ArrayLike, IntoParam, Param};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::lax;
use crate::primitive::ReduceOp;

/// How [`einsum_with`] and [`einsum_path`] order the pairwise contractions (JAX's
/// `optimize`). Every order gives the same result up to rounding; the cost differs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum EinsumOptimize {
    /// JAX's default (`"auto"`): the optimal order for up to four operands, a
    /// branch-and-bound search up to fourteen, greedy beyond.
    #[default]
    Auto,
    /// Repeatedly contracts the pair that removes the most elements (`"greedy"`).
    Greedy,
    /// An exhaustive search for the fewest flops (`"optimal"`, or `optimize=True`);
    /// exponential in the operand count.
    Optimal,
    /// A depth-first search that follows the `n` most promising pairs at each step
    /// (`None`: all of them), pruning orders four times costlier than the best so far
    /// (`"branch-2"`, `"branch-all"`).
    Branch(Option<usize>),
    /// Left to right, `(0, 1)` at every step (`optimize=False`).
    Unoptimized,
    /// A path as [`einsum_path`] returns it: each step lists positions in the current
    /// list of operands, which are removed and their contraction appended.
    Path(Vec<Vec<usize>>),
}

impl IntoParam for EinsumOptimize {
    fn to_param(&self) -> Param {
        Param::Other(format!("{self:?}"))
    }
}

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

/// A set of labels as bits (at most 128 distinct labels).
type Key = u128;

/// The labels in `k`.
fn bits(k: Key) -> impl Iterator<Item = usize> {
    (0..128).filter(move |b| k >> b & 1 == 1)
}

/// The path optimizers' view of a contraction: label sets and sizes per bit.
struct Net {
    inputs: Vec<Key>,
    output: Key,
    sizes: Vec<u128>,
}

impl Net {
    fn new(func: &str, spec: &Spec) -> Result<(Net, Vec<char>)> {
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

    fn size(&self, k: Key) -> u128 {
        bits(k).fold(1u128, |a, b| a.saturating_mul(self.sizes[b]))
    }

    /// opt_einsum's `flop_count`: one loop over `k`, times the operations per element.
    fn flops(&self, k: Key, inner: bool, terms: usize) -> u128 {
        let ops = terms.saturating_sub(1).max(1) + usize::from(inner);
        self.size(k).saturating_mul(ops as u128)
    }

    /// The labels and cost of contracting `i` with `j` when `remaining` are left.
    fn pair_cost(&self, inputs: &[Key], remaining: &[usize], i: usize, j: usize) -> (Key, u128) {
        let (k1, k2) = (inputs[i], inputs[j]);
        let keep = remaining
            .iter()
            .filter(|&&r| r != i && r != j)
            .fold(self.output, |a, &r| a | inputs[r]);
        let either = k1 | k2;
        let shared = k1 & k2;
        (either & keep, self.flops(either, shared & !keep != 0, 2))
    }
}

/// A set of operand ids iterated as CPython 3.11 iterates a `set` of small ints (slot
/// order in an open-addressed table): opt_einsum's `optimal` and `branch` walk
/// `itertools.combinations(remaining, 2)` over such sets, and that order breaks their ties
/// (and feeds their pruning), so the same order gives JAX's paths. Only the operations
/// opt_einsum applies are modelled: `set(range(n))` and `remaining - {i, j} | {k}`.
#[derive(Clone)]
struct PySet {
    /// `None`: never used; `Some(None)`: a deleted entry (CPython's dummy).
    table: Vec<Option<Option<usize>>>,
    fill: usize,
    used: usize,
}

impl PySet {
    const LINEAR_PROBES: usize = 9;

    fn empty(size: usize) -> PySet {
        PySet {
            table: vec![None; size],
            fill: 0,
            used: 0,
        }
    }

    /// `set(range(n))`: one insertion at a time.
    fn range(n: usize) -> PySet {
        let mut s = PySet::empty(8);
        for k in 0..n {
            s.add(k);
        }
        s
    }

    fn keys(&self) -> Vec<usize> {
        self.table.iter().filter_map(|e| e.flatten()).collect()
    }

    /// CPython's probe sequence from `key`'s hash (the int itself).
    fn probe(mask: usize, key: usize, mut f: impl FnMut(usize) -> bool) {
        let (mut i, mut perturb) = (key & mask, key);
        loop {
            let probes = if i + Self::LINEAR_PROBES <= mask {
                Self::LINEAR_PROBES
            } else {
                0
            };
            for j in i..=i + probes {
                if f(j) {
                    return;
                }
            }
            perturb >>= 5;
            i = (i * 5 + 1 + perturb) & mask;
        }
    }

    /// `set_insert_clean`: into a table without dummies, known not to hold `key`.
    fn insert_clean(table: &mut [Option<Option<usize>>], key: usize) {
        let mask = table.len() - 1;
        Self::probe(mask, key, |j| {
            if table[j].is_none() {
                table[j] = Some(Some(key));
                true
            } else {
                false
            }
        });
    }

    /// `set_table_resize`.
    fn resize(&mut self, min_used: usize) {
        let mut size = 8;
        while size <= min_used {
            size <<= 1;
        }
        let keys = self.keys();
        self.table = vec![None; size];
        for k in keys {
            Self::insert_clean(&mut self.table, k);
        }
        self.fill = self.used;
    }

    /// `set_add_entry`.
    fn add(&mut self, key: usize) {
        let mask = self.table.len() - 1;
        let (mut free, mut unused, mut present) = (None, None, false);
        let table = &self.table;
        Self::probe(mask, key, |j| match table[j] {
            None => {
                unused = Some(j);
                true
            }
            Some(Some(k)) if k == key => {
                present = true;
                true
            }
            Some(None) => {
                free = free.or(Some(j));
                false
            }
            Some(Some(_)) => false,
        });
        if present {
            return;
        }
        self.used += 1;
        if let Some(j) = free {
            self.table[j] = Some(Some(key));
            return;
        }
        self.table[unused.expect("an empty slot")] = Some(Some(key));
        self.fill += 1;
        if self.fill * 5 >= mask * 3 {
            self.resize(if self.used > 50000 {
                self.used * 2
            } else {
                self.used * 4
            });
        }
    }

    /// `set_copy`: `set_merge` into an empty set.
    fn copy(&self) -> PySet {
        let mut s = PySet::empty(8);
        if self.used * 5 >= 7 * 3 {
            s.resize(self.used * 2);
        }
        if s.table.len() == self.table.len() && self.fill == self.used {
            s.table = self.table.clone();
        } else {
            for k in self.keys() {
                Self::insert_clean(&mut s.table, k);
            }
        }
        s.fill = self.used;
        s.used = self.used;
        s
    }

    /// `self - {i, j} | {k}`, as CPython builds it.
    fn replace(&self, i: usize, j: usize, k: usize) -> PySet {
        let d = if self.used >> 2 > 2 {
            // `set_copy_and_difference`: deletions leave dummies.
            let mut d = self.copy();
            for x in [i, j] {
                if let Some(e) = d.table.iter_mut().find(|e| **e == Some(Some(x))) {
                    *e = Some(None);
                    d.used -= 1;
                }
            }
            d
        } else {
            let mut d = PySet::empty(8);
            for x in self.keys() {
                if x != i && x != j {
                    d.add(x);
                }
            }
            d
        };
        // `set_or`: a copy, then `set_merge` of the one-element set.
        let mut u = d.copy();
        if (u.fill + 1) * 5 >= (u.table.len() - 1) * 3 {
            u.resize((u.used + 1) * 2);
        }
        u.add(k);
        u
    }
}

/// A path of static single assignment ids (each step's result takes the next id) as
/// positions in the shrinking list of operands.
fn ssa_to_linear(ssa: &[Vec<usize>], n: usize) -> Vec<Vec<usize>> {
    let mut ids: Vec<usize> = (0..n).collect();
    let mut next = n;
    ssa.iter()
        .map(|step| {
            let mut con: Vec<usize> = step
                .iter()
                .map(|s| ids.partition_point(|&x| x < *s))
                .collect();
            con.sort_unstable();
            for &j in con.iter().rev() {
                ids.remove(j);
            }
            ids.push(next);
            next += 1;
            con
        })
        .collect()
}

/// opt_einsum's `optimal`: every order, depth first, cut where the flops reach the best
/// so far. Its cache of pair costs is keyed by the two label sets alone (not by what
/// else remains), which can choose a costlier order; kept, so the paths are JAX's.
fn optimal(net: &Net) -> Vec<Vec<usize>> {
    struct S<'a> {
        net: &'a Net,
        best: Option<u128>,
        best_path: Vec<Vec<usize>>,
        cache: HashMap<(Key, Key), (Key, u128)>,
    }
    fn go(s: &mut S, path: &mut Vec<Vec<usize>>, inputs: &mut Vec<Key>, set: &PySet, flops: u128) {
        let rem = set.keys();
        if rem.len() == 1 {
            s.best = Some(flops);
            s.best_path = path.clone();
            return;
        }
        for a in 0..rem.len() {
            for b in a + 1..rem.len() {
                let (i, j) = (rem[a].min(rem[b]), rem[a].max(rem[b]));
                let key = (inputs[i], inputs[j]);
                let (k12, f12) = match s.cache.get(&key) {
                    Some(&v) => v,
                    None => {
                        let v = s.net.pair_cost(inputs, &rem, i, j);
                        s.cache.insert(key, v);
                        v
                    }
                };
                let nf = flops.saturating_add(f12);
                if s.best.is_some_and(|b| nf >= b) {
                    continue;
                }
                let next = set.replace(i, j, inputs.len());
                path.push(vec![i, j]);
                inputs.push(k12);
                go(s, path, inputs, &next, nf);
                inputs.pop();
                path.pop();
            }
        }
    }
    let n = net.inputs.len();
    let mut s = S {
        net,
        best: None,
        best_path: vec![(0..n).collect()],
        cache: HashMap::new(),
    };
    go(
        &mut s,
        &mut Vec::new(),
        &mut net.inputs.clone(),
        &PySet::range(n),
        0,
    );
    ssa_to_linear(&s.best_path, n)
}

/// opt_einsum's `branch`: depth first over the `nbranch` cheapest pairs by elements
/// removed (pairs sharing no label only when nothing else is left), cut where the flops
/// and largest intermediate are no better than the best order's, or the flops exceed four
/// times the best seen at the same depth.
fn branch(net: &Net, nbranch: Option<usize>) -> Vec<Vec<usize>> {
    type Cand = (i128, u128, u128, u128, (usize, usize), Key);
    struct S<'a> {
        net: &'a Net,
        nbranch: Option<usize>,
        best: Option<(u128, u128, Vec<Vec<usize>>)>,
        progress: HashMap<usize, u128>,
        cache: HashMap<(Key, Key), (Key, u128)>,
    }
    fn assess(
        s: &mut S,
        inputs: &[Key],
        rem: &[usize],
        (i, j): (usize, usize),
        flops: u128,
        size: u128,
    ) -> Option<Cand> {
        let key = (inputs[i], inputs[j]);
        let (k12, f12) = match s.cache.get(&key) {
            Some(&v) => v,
            None => {
                let v = s.net.pair_cost(inputs, rem, i, j);
                s.cache.insert(key, v);
                v
            }
        };
        let size12 = s.net.size(k12);
        let nf = flops.saturating_add(f12);
        let ns = size.max(size12);
        if s.best.as_ref().is_some_and(|b| (nf, ns) >= (b.0, b.1)) {
            return None;
        }
        match s.progress.get(&inputs.len()) {
            Some(&p) if nf >= p => {
                if nf > p.saturating_mul(4) {
                    return None;
                }
            }
            _ => {
                s.progress.insert(inputs.len(), nf);
            }
        }
        let cost = size12 as i128 - s.net.size(inputs[i]) as i128 - s.net.size(inputs[j]) as i128;
        Some((cost, f12, nf, ns, (i, j), k12))
    }
    fn go(
        s: &mut S,
        path: &mut Vec<Vec<usize>>,
        inputs: &mut Vec<Key>,
        set: &PySet,
        flops: u128,
        size: u128,
    ) {
        let rem = set.keys();
        if rem.len() == 1 {
            s.best = Some((flops, size, path.clone()));
            return;
        }
        let mut cands: Vec<Cand> = Vec::new();
        for outer in [false, true] {
            for a in 0..rem.len() {
                for b in a + 1..rem.len() {
                    let (i, j) = (rem[a].min(rem[b]), rem[a].max(rem[b]));
                    if !outer && inputs[i] & inputs[j] == 0 {
                        continue;
                    }
                    if let Some(c) = assess(s, inputs, &rem, (i, j), flops, size) {
                        cands.push(c);
                    }
                }
            }
            if !cands.is_empty() {
                break;
            }
        }
        cands.sort_unstable_by_key(|x| (x.0, x.1, x.2, x.3, x.4));
        for (taken, &(_, _, nf, ns, (i, j), k12)) in cands.iter().enumerate() {
            if s.nbranch.is_some_and(|n| taken >= n) {
                break;
            }
            let next = set.replace(i, j, inputs.len());
            path.push(vec![i, j]);
            inputs.push(k12);
            go(s, path, inputs, &next, nf, ns);
            inputs.pop();
            path.pop();
        }
    }
    let n = net.inputs.len();
    let mut s = S {
        net,
        nbranch,
        best: None,
        progress: HashMap::new(),
        cache: HashMap::new(),
    };
    go(
        &mut s,
        &mut Vec::new(),
        &mut net.inputs.clone(),
        &PySet::range(n),
        0,
        0,
    );
    let ssa = s
        .best
        .map(|b| b.2)
        .unwrap_or_else(|| vec![(0..n).collect()]);
    ssa_to_linear(&ssa, n)
}

/// opt_einsum's `greedy`: first merges operands with the same labels (Hadamard
/// products), then repeatedly contracts the pair whose result has the most fewer elements
/// than its operands (ties to the older operands), then joins what is left by outer
/// products, smallest first.
fn greedy(net: &Net) -> Vec<Vec<usize>> {
    let n = net.inputs.len();
    // A label all operands share might as well be an output label.
    let output = net.output | net.inputs.iter().fold(!0, |a, &k| a & k);
    let mut ssa: Vec<Vec<usize>> = Vec::new();
    let mut next_id = n;
    // Live operands by label set (insertion order kept, as Python's dict).
    let mut remaining: Vec<(Key, usize)> = Vec::new();
    for (id, &k) in net.inputs.iter().enumerate() {
        if let Some(e) = remaining.iter_mut().find(|e| e.0 == k) {
            ssa.push(vec![e.1, id]);
            e.1 = next_id;
            next_id += 1;
        } else {
            remaining.push((k, id));
        }
    }
    let id_of = |rem: &[(Key, usize)], k: Key| rem.iter().find(|e| e.0 == k).map(|e| e.1);
    // Per label outside the output: the live label sets that use it.
    let mut dim_keys: Vec<Vec<Key>> = vec![Vec::new(); 128];
    for &(k, _) in &remaining {
        for d in bits(k & !output) {
            dim_keys[d].push(k);
        }
    }
    let refs = |dim_keys: &[Vec<Key>], at_least: usize| -> Key {
        (0..128)
            .filter(|&d| dim_keys[d].len() >= at_least && output >> d & 1 == 0)
            .fold(0, |a, d| a | 1 << d)
    };
    let (mut ref2, mut ref3) = (refs(&dim_keys, 2), refs(&dim_keys, 3));
    let mut footprint: HashMap<Key, u128> =
        remaining.iter().map(|e| (e.0, net.size(e.0))).collect();
    // Candidates: (cost, newer id, older id, older key, newer key, result key).
    type Cand = (i128, usize, usize, Key, Key, Key);
    let by_cost = |x: &Cand, y: &Cand| (x.0, x.1, x.2).cmp(&(y.0, y.1, y.2));
    let candidate = |rem: &[(Key, usize)],
                     fp: &HashMap<Key, u128>,
                     r2: Key,
                     r3: Key,
                     k1: Key,
                     k2: Key|
     -> Cand {
        let either = k1 | k2;
        let two = k1 & k2;
        let one = either & !two;
        let k12 = (either & output) | (two & r3) | (one & r2);
        let cost = net.size(k12) as i128 - fp[&k1] as i128 - fp[&k2] as i128;
        let (mut a, mut ia, mut b, mut ib) =
            (k1, id_of(rem, k1).unwrap(), k2, id_of(rem, k2).unwrap());
        if ia > ib {
            std::mem::swap(&mut a, &mut b);
            std::mem::swap(&mut ia, &mut ib);
        }
        (cost, ib, ia, a, b, k12)
    };
    let mut queue: BinaryHeap<Reverse<Cand>> = BinaryHeap::new();
    for keys in &dim_keys {
        let mut keys = keys.clone();
        keys.sort_by_key(|&k| id_of(&remaining, k));
        for i in 0..keys.len().saturating_sub(1) {
            let best = keys[i + 1..]
                .iter()
                .map(|&k2| candidate(&remaining, &footprint, ref2, ref3, keys[i], k2))
                .min_by(by_cost)
                .expect("one candidate at least");
            queue.push(Reverse(best));
        }
    }
    while let Some(Reverse((_, _, _, k1, k2, k12))) = queue.pop() {
        let (Some(id1), Some(id2)) = (id_of(&remaining, k1), id_of(&remaining, k2)) else {
            continue;
        };
        remaining.retain(|e| e.0 != k1 && e.0 != k2);
        for (k, d) in bits(k1 & !output)
            .map(|d| (k1, d))
            .chain(bits(k2 & !output).map(|d| (k2, d)))
        {
            dim_keys[d].retain(|&x| x != k);
        }
        ssa.push(vec![id1, id2]);
        if let Some(e) = remaining.iter_mut().find(|e| e.0 == k12) {
            ssa.push(vec![e.1, next_id]);
            next_id += 1;
            e.1 = next_id;
        } else {
            for d in bits(k12 & !output) {
                dim_keys[d].push(k12);
            }
            remaining.push((k12, next_id));
        }
        next_id += 1;
        // opt_einsum updates the counts of `k1 | (k2 - output)`.
        for d in bits(k1 | (k2 & !output)) {
            let count = if output >> d & 1 == 1 {
                0
            } else {
                dim_keys[d].len()
            };
            let bit = 1u128 << d;
            match count {
                0 | 1 => {
                    ref2 &= !bit;
                    ref3 &= !bit;
                }
                2 => {
                    ref2 |= bit;
                    ref3 &= !bit;
                }
                _ => {
                    ref2 |= bit;
                    ref3 |= bit;
                }
            }
        }
        footprint.insert(k12, net.size(k12));
        let mut k2s: Vec<Key> = bits(k12)
            .flat_map(|d| dim_keys[d].iter().copied())
            .filter(|&k| k != k12)
            .collect();
        k2s.sort_unstable();
        k2s.dedup();
        if let Some(best) = k2s
            .iter()
            .map(|&k2| candidate(&remaining, &footprint, ref2, ref3, k12, k2))
            .min_by(by_cost)
        {
            queue.push(Reverse(best));
        }
    }
    // Outer products of what is left, smallest first.
    let mut fin: BinaryHeap<Reverse<(u128, usize, Key)>> = remaining
        .iter()
        .map(|&(k, id)| Reverse((net.size(k & output), id, k)))
        .collect();
    let Reverse((_, mut id1, mut k1)) = fin.pop().expect("an operand left");
    while let Some(Reverse((_, id2, k2))) = fin.pop() {
        ssa.push(vec![id1.min(id2), id1.max(id2)]);
        let k12 = (k1 | k2) & output;
        fin.push(Reverse((net.size(k12), next_id, k12)));
        next_id += 1;
        let Reverse((_, i, k)) = fin.pop().expect("just pushed");
        (id1, k1) = (i, k);
    }
    ssa_to_linear(&ssa, n)
}

/// The path `optimize` gives for `net`, as JAX's `contract_path` chooses it.
fn choose_path(func: &str, net: &Net, optimize: &EinsumOptimize) -> Result<Vec<Vec<usize>>> {
    let n = net.inputs.len();
    if let EinsumOptimize::Path(p) = optimize {
        let mut left = n;
        for step in p {
            let mut s = step.clone();
            s.sort_unstable();
            s.dedup();
            if s.is_empty() || s.len() != step.len() || s.last().is_some_and(|&l| l >= left) {
                return Err(Error::arg(
                    func,
                    format!(
                        "path step {step:?} does not name distinct operands of the {left} left"
                    ),
                ));
            }
            left = left - s.len() + 1;
        }
        if left != 1 {
            return Err(Error::arg(
                func,
                format!("the path {p:?} leaves {left} operands of {n}, not one"),
            ));
        }
        return Ok(p.clone());
    }
    if n <= 2 {
        return Ok(vec![(0..n).collect()]);
    }
    Ok(match optimize {
        EinsumOptimize::Unoptimized => vec![vec![0, 1]; n - 1],
        EinsumOptimize::Greedy => greedy(net),
        EinsumOptimize::Optimal => optimal(net),
        EinsumOptimize::Branch(b) => branch(net, *b),
        _ => match n {
            ..=4 => optimal(net),
            5..=6 => branch(net, None),
            7..=8 => branch(net, Some(2)),
            9..=14 => branch(net, Some(1)),
            _ => greedy(net),
        },
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
    let (net, labels) = Net::new(func, &spec)?;
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
    let (net, _) = Net::new(func, &spec)?;
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

#[cfg(test)]
mod tests {
    use super::PySet;

    /// Iteration orders CPython 3.11.7 gives for `set(range(n))` and then repeated
    /// `s - {i, j} | {next}` (made with a seeded `random.Random(7)` choosing `i, j`).
    #[test]
    fn py_set_iterates_as_cpython() {
        #[rustfmt::skip]
        type Case<'a> = (usize, &'a [(usize, usize)], &'a [usize]);
        let cases: &[Case] = &[
            (
                6,
                &[(2, 1), (5, 0), (3, 6), (8, 4), (9, 7)],
                &[
                    0, 1, 2, 3, 4, 5, 0, 3, 4, 5, 6, 3, 4, 6, 7, 8, 4, 7, 9, 7, 10,
                ],
            ),
            (
                9,
                &[
                    (0, 1),
                    (8, 5),
                    (2, 3),
                    (4, 10),
                    (11, 6),
                    (9, 7),
                    (14, 12),
                    (15, 13),
                ],
                &[
                    0, 1, 2, 3, 4, 5, 6, 7, 8, 2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 6, 7, 9, 10, 4, 6,
                    7, 9, 10, 11, 6, 7, 9, 11, 12, 9, 12, 13, 7, 12, 13, 14, 13, 15, 16,
                ],
            ),
            (
                13,
                &[
                    (3, 0),
                    (10, 4),
                    (7, 9),
                    (5, 14),
                    (2, 11),
                    (17, 16),
                    (12, 15),
                    (13, 18),
                    (20, 1),
                    (8, 21),
                    (19, 22),
                    (23, 6),
                ],
                &[
                    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                    13, 1, 2, 5, 6, 7, 8, 9, 11, 12, 13, 14, 1, 2, 5, 6, 8, 11, 12, 13, 14, 15, 1,
                    2, 6, 8, 11, 12, 13, 15, 16, 16, 1, 17, 6, 8, 12, 13, 15, 1, 18, 6, 8, 12, 13,
                    15, 1, 18, 19, 6, 8, 13, 1, 19, 20, 6, 8, 8, 19, 21, 6, 19, 6, 22, 6, 23, 24,
                ],
            ),
            (
                17,
                &[
                    (10, 14),
                    (16, 5),
                    (4, 3),
                    (18, 2),
                    (19, 7),
                    (1, 17),
                    (11, 20),
                    (21, 13),
                    (23, 12),
                    (25, 0),
                    (26, 9),
                    (22, 8),
                    (24, 28),
                    (15, 27),
                    (30, 29),
                    (31, 6),
                ],
                &[
                    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0, 1, 2, 3, 4, 5, 6,
                    7, 8, 9, 11, 12, 13, 15, 16, 17, 0, 1, 2, 3, 4, 6, 7, 8, 9, 11, 12, 13, 15, 17,
                    18, 0, 1, 2, 6, 7, 8, 9, 11, 12, 13, 15, 17, 18, 19, 0, 1, 6, 7, 8, 9, 11, 12,
                    13, 15, 17, 19, 20, 0, 1, 6, 8, 9, 11, 12, 13, 15, 17, 20, 21, 0, 6, 8, 9, 11,
                    12, 13, 15, 20, 21, 22, 0, 6, 8, 9, 12, 13, 15, 21, 22, 23, 0, 6, 8, 9, 12, 15,
                    22, 23, 24, 0, 25, 6, 22, 8, 9, 24, 15, 6, 22, 8, 9, 26, 24, 15, 6, 22, 8, 24,
                    27, 15, 6, 24, 27, 28, 15, 27, 29, 6, 15, 29, 6, 30, 6, 31, 32,
                ],
            ),
            (
                20,
                &[
                    (11, 15),
                    (20, 16),
                    (2, 21),
                    (9, 19),
                    (3, 0),
                    (18, 24),
                    (7, 17),
                    (22, 23),
                    (13, 8),
                    (14, 12),
                    (1, 27),
                    (26, 6),
                    (5, 10),
                    (32, 4),
                    (28, 25),
                    (34, 30),
                    (31, 35),
                    (33, 29),
                    (37, 36),
                ],
                &[
                    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 0, 1, 2,
                    3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 16, 17, 18, 19, 20, 0, 1, 2, 3, 4, 5, 6,
                    7, 8, 9, 10, 12, 13, 14, 17, 18, 19, 21, 0, 1, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13,
                    14, 17, 18, 19, 22, 0, 1, 3, 4, 5, 6, 7, 8, 10, 12, 13, 14, 17, 18, 22, 23, 1,
                    4, 5, 6, 7, 8, 10, 12, 13, 14, 17, 18, 22, 23, 24, 1, 4, 5, 6, 7, 8, 10, 12,
                    13, 14, 17, 22, 23, 25, 1, 4, 5, 6, 8, 10, 12, 13, 14, 22, 23, 25, 26, 1, 4, 5,
                    6, 8, 10, 12, 13, 14, 25, 26, 27, 1, 4, 5, 6, 10, 12, 14, 25, 26, 27, 28, 1, 4,
                    5, 6, 10, 25, 26, 27, 28, 29, 4, 5, 6, 10, 25, 26, 28, 29, 30, 4, 5, 25, 10,
                    28, 29, 30, 31, 32, 4, 25, 28, 29, 30, 31, 33, 25, 28, 29, 30, 31, 33, 34, 29,
                    30, 31, 33, 35, 29, 31, 33, 36, 29, 36, 37, 38,
                ],
            ),
            (
                33,
                &[
                    (17, 8),
                    (29, 19),
                    (25, 14),
                    (12, 26),
                    (36, 15),
                    (7, 4),
                    (2, 6),
                    (9, 13),
                    (37, 18),
                    (0, 31),
                    (38, 16),
                    (23, 24),
                    (1, 11),
                    (39, 43),
                    (34, 33),
                    (21, 46),
                    (5, 45),
                    (22, 42),
                    (44, 30),
                    (3, 48),
                    (52, 49),
                    (32, 41),
                    (40, 47),
                    (55, 50),
                    (10, 54),
                    (35, 28),
                    (51, 57),
                    (53, 58),
                    (20, 59),
                    (56, 61),
                    (27, 60),
                    (62, 63),
                ],
                &[
                    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                    22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11,
                    12, 13, 14, 15, 16, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
                    33, 0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 16, 18, 20, 21, 22, 23,
                    24, 25, 26, 27, 28, 30, 31, 32, 33, 34, 0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12,
                    13, 15, 16, 18, 20, 21, 22, 23, 24, 26, 27, 28, 30, 31, 32, 33, 34, 35, 0, 1,
                    2, 3, 4, 5, 6, 7, 9, 10, 11, 13, 15, 16, 18, 20, 21, 22, 23, 24, 27, 28, 30,
                    31, 32, 33, 34, 35, 36, 0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 13, 16, 18, 20, 21,
                    22, 23, 24, 27, 28, 30, 31, 32, 33, 34, 35, 37, 0, 1, 2, 3, 5, 6, 9, 10, 11,
                    13, 16, 18, 20, 21, 22, 23, 24, 27, 28, 30, 31, 32, 33, 34, 35, 37, 38, 0, 1,
                    3, 5, 9, 10, 11, 13, 16, 18, 20, 21, 22, 23, 24, 27, 28, 30, 31, 32, 33, 34,
                    35, 37, 38, 39, 0, 1, 3, 5, 10, 11, 16, 18, 20, 21, 22, 23, 24, 27, 28, 30, 31,
                    32, 33, 34, 35, 37, 38, 39, 40, 0, 1, 3, 5, 10, 11, 16, 20, 21, 22, 23, 24, 27,
                    28, 30, 31, 32, 33, 34, 35, 38, 39, 40, 41, 1, 3, 5, 10, 11, 16, 20, 21, 22,
                    23, 24, 27, 28, 30, 32, 33, 34, 35, 38, 39, 40, 41, 42, 1, 3, 5, 10, 11, 20,
                    21, 22, 23, 24, 27, 28, 30, 32, 33, 34, 35, 39, 40, 41, 42, 43, 1, 3, 5, 10,
                    11, 20, 21, 22, 27, 28, 30, 32, 33, 34, 35, 39, 40, 41, 42, 43, 44, 3, 5, 10,
                    20, 21, 22, 27, 28, 30, 32, 33, 34, 35, 39, 40, 41, 42, 43, 44, 45, 3, 5, 10,
                    20, 21, 22, 27, 28, 30, 32, 33, 34, 35, 40, 41, 42, 44, 45, 46, 3, 5, 10, 20,
                    21, 22, 27, 28, 30, 32, 35, 40, 41, 42, 44, 45, 46, 47, 3, 5, 10, 20, 22, 27,
                    28, 30, 32, 35, 40, 41, 42, 44, 45, 47, 48, 32, 3, 35, 40, 41, 10, 42, 44, 47,
                    48, 49, 20, 22, 27, 28, 30, 32, 3, 35, 40, 41, 10, 44, 47, 48, 49, 50, 20, 27,
                    28, 30, 32, 3, 35, 40, 41, 10, 47, 48, 49, 50, 51, 20, 27, 28, 32, 35, 40, 41,
                    10, 47, 49, 50, 51, 20, 52, 27, 28, 32, 35, 40, 41, 10, 47, 50, 51, 20, 53, 27,
                    28, 35, 40, 10, 47, 50, 51, 20, 53, 54, 27, 28, 35, 10, 50, 51, 20, 53, 54, 55,
                    27, 28, 35, 10, 51, 20, 53, 54, 56, 27, 28, 35, 51, 20, 53, 56, 57, 27, 28, 51,
                    20, 53, 56, 57, 58, 27, 20, 53, 56, 59, 58, 27, 20, 56, 59, 27, 60, 56, 27, 60,
                    61, 27, 60, 62, 62, 63, 64,
                ],
            ),
        ];
        for &(n, steps, orders) in cases {
            let mut s = PySet::range(n);
            let mut got = s.keys();
            for (t, &(i, j)) in steps.iter().enumerate() {
                s = s.replace(i, j, n + t);
                got.extend(s.keys());
            }
            assert_eq!(got, orders, "n = {n}");
        }
    }
}
