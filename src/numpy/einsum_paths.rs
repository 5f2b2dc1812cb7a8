//! The contraction-path optimizers of `einsum` as opt_einsum implements them for JAX:
//! greedy, optimal and branch-and-bound searches over label sets held as bits, with
//! CPython's set iteration order modelled where it breaks their ties, chosen by operand
//! count as opt_einsum's `"auto"` does.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use crate::convert::{IntoParam, Param};
use crate::error::{Error, Result};

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

/// A set of labels as bits (at most 128 distinct labels).
pub(super) type Key = u128;

/// The labels in `k`.
pub(super) fn bits(k: Key) -> impl Iterator<Item = usize> {
    (0..128).filter(move |b| k >> b & 1 == 1)
}

/// The path optimizers' view of a contraction: label sets and sizes per bit.
pub(super) struct Net {
    pub(super) inputs: Vec<Key>,
    pub(super) output: Key,
    pub(super) sizes: Vec<u128>,
}

impl Net {
    pub(super) fn size(&self, k: Key) -> u128 {
        bits(k).fold(1u128, |a, b| a.saturating_mul(self.sizes[b]))
    }

    /// opt_einsum's `flop_count`: one loop over `k`, times the operations per element.
    pub(super) fn flops(&self, k: Key, inner: bool, terms: usize) -> u128 {
        let ops = terms.saturating_sub(1).max(1) + usize::from(inner);
        self.size(k).saturating_mul(ops as u128)
    }

    /// The labels and cost of contracting `i` with `j` when `remaining` are left.
    pub(super) fn pair_cost(
        &self,
        inputs: &[Key],
        remaining: &[usize],
        i: usize,
        j: usize,
    ) -> (Key, u128) {
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
pub(super) struct PySet {
    /// `None`: never used; `Some(None)`: a deleted entry (CPython's dummy).
    pub(super) table: Vec<Option<Option<usize>>>,
    pub(super) fill: usize,
    pub(super) used: usize,
}

impl PySet {
    const LINEAR_PROBES: usize = 9;

    pub(super) fn empty(size: usize) -> PySet {
        PySet {
            table: vec![None; size],
            fill: 0,
            used: 0,
        }
    }

    /// `set(range(n))`: one insertion at a time.
    pub(super) fn range(n: usize) -> PySet {
        let mut s = PySet::empty(8);
        for k in 0..n {
            s.add(k);
        }
        s
    }

    pub(super) fn keys(&self) -> Vec<usize> {
        self.table.iter().filter_map(|e| e.flatten()).collect()
    }

    /// CPython's probe sequence from `key`'s hash (the int itself).
    pub(super) fn probe(mask: usize, key: usize, mut f: impl FnMut(usize) -> bool) {
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
    pub(super) fn insert_clean(table: &mut [Option<Option<usize>>], key: usize) {
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
    pub(super) fn resize(&mut self, min_used: usize) {
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
    pub(super) fn add(&mut self, key: usize) {
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
    pub(super) fn copy(&self) -> PySet {
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
    pub(super) fn replace(&self, i: usize, j: usize, k: usize) -> PySet {
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
pub(super) fn ssa_to_linear(ssa: &[Vec<usize>], n: usize) -> Vec<Vec<usize>> {
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
pub(super) fn optimal(net: &Net) -> Vec<Vec<usize>> {
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
pub(super) fn branch(net: &Net, nbranch: Option<usize>) -> Vec<Vec<usize>> {
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
pub(super) fn greedy(net: &Net) -> Vec<Vec<usize>> {
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
pub(super) fn choose_path(
    func: &str,
    net: &Net,
    optimize: &EinsumOptimize,
) -> Result<Vec<Vec<usize>>> {
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
