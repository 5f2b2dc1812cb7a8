//! `PyTree` for arrays, Rust containers, tuples, scalars and strings.

use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasher;

use half::f16;

use super::def::{Kind, StaticFloat};
use super::{KeyEntry, Leaves, PyTree, TreeDef};
use crate::array::Array;
use crate::error::Result;

/// An array is a leaf.
impl PyTree for Array {
    fn flatten_into(&self, leaves: &mut Vec<Array>) -> TreeDef {
        leaves.push(self.clone());
        TreeDef::leaf()
    }

    fn unflatten_from(def: &TreeDef, leaves: &mut Leaves<'_>) -> Result<Self> {
        leaves.leaf(def)
    }
}

/// `()` is the empty tuple: a node without children.
impl PyTree for () {
    fn flatten_into(&self, _leaves: &mut Vec<Array>) -> TreeDef {
        TreeDef::tuple(Vec::new())
    }

    fn unflatten_from(def: &TreeDef, leaves: &mut Leaves<'_>) -> Result<Self> {
        leaves.expect_node(def, &Kind::Tuple, Some(0), "()")?;
        Ok(())
    }
}

macro_rules! tuple_impl {
    ($n:literal; $($t:ident $i:tt),+) => {
        /// A tuple: a node with one child per element, keys `[0]`, `[1]`, ...
        impl<$($t: PyTree),+> PyTree for ($($t,)+) {
            fn flatten_into(&self, leaves: &mut Vec<Array>) -> TreeDef {
                TreeDef::tuple(vec![$(self.$i.flatten_into(leaves)),+])
            }

            fn unflatten_from(def: &TreeDef, leaves: &mut Leaves<'_>) -> Result<Self> {
                let c = leaves.expect_node(def, &Kind::Tuple, Some($n), concat!("a tuple of ", $n))?;
                Ok(($(leaves.child(KeyEntry::Index($i), &c[$i])?,)+))
            }
        }
    };
}

tuple_impl!(1; A 0);
tuple_impl!(2; A 0, B 1);
tuple_impl!(3; A 0, B 1, C 2);
tuple_impl!(4; A 0, B 1, C 2, D 3);
tuple_impl!(5; A 0, B 1, C 2, D 3, E 4);
tuple_impl!(6; A 0, B 1, C 2, D 3, E 4, F 5);
tuple_impl!(7; A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_impl!(8; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
tuple_impl!(9; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
tuple_impl!(10; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
tuple_impl!(11; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
tuple_impl!(12; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

/// A `Vec` is a list node, keys `[0]`, `[1]`, ...
impl<T: PyTree> PyTree for Vec<T> {
    fn flatten_into(&self, leaves: &mut Vec<Array>) -> TreeDef {
        TreeDef::list(self.iter().map(|x| x.flatten_into(leaves)).collect())
    }

    fn unflatten_from(def: &TreeDef, leaves: &mut Leaves<'_>) -> Result<Self> {
        let c = leaves.expect_node(def, &Kind::List, None, "a list")?;
        c.iter()
            .enumerate()
            .map(|(i, d)| leaves.child(KeyEntry::Index(i), d))
            .collect()
    }
}

/// A Rust array is a list node (the same structure as a `Vec` of its length).
impl<T: PyTree, const N: usize> PyTree for [T; N] {
    fn flatten_into(&self, leaves: &mut Vec<Array>) -> TreeDef {
        TreeDef::list(self.iter().map(|x| x.flatten_into(leaves)).collect())
    }

    fn unflatten_from(def: &TreeDef, leaves: &mut Leaves<'_>) -> Result<Self> {
        let what = format!("a list of {N}");
        let c = leaves.expect_node(def, &Kind::List, Some(N), &what)?;
        let v = c
            .iter()
            .enumerate()
            .map(|(i, d)| leaves.child(KeyEntry::Index(i), d))
            .collect::<Result<Vec<T>>>()?;
        v.try_into()
            .map_err(|_| leaves.error(format!("expected {what}")))
    }
}

/// `None` is a node without children (not a leaf); `Some(x)` is a node with one child,
/// `x`, displayed `Some(*)` and transparent in key paths.
impl<T: PyTree> PyTree for Option<T> {
    fn flatten_into(&self, leaves: &mut Vec<Array>) -> TreeDef {
        match self {
            None => TreeDef::none(),
            Some(x) => TreeDef::some(x.flatten_into(leaves)),
        }
    }

    fn unflatten_from(def: &TreeDef, leaves: &mut Leaves<'_>) -> Result<Self> {
        match def.0.kind {
            Kind::None => Ok(None),
            Kind::Some if def.children().len() == 1 => {
                Ok(Some(leaves.child_opt(None, &def.children()[0])?))
            }
            _ => Err(leaves.mismatch("None or Some(..)", def)),
        }
    }
}

/// Transparent: a box has its content's structure.
impl<T: PyTree> PyTree for Box<T> {
    fn flatten_into(&self, leaves: &mut Vec<Array>) -> TreeDef {
        (**self).flatten_into(leaves)
    }

    fn unflatten_from(def: &TreeDef, leaves: &mut Leaves<'_>) -> Result<Self> {
        T::unflatten_from(def, leaves).map(Box::new)
    }
}

/// A map node, children in sorted key order, keys `['k']`.
impl<T: PyTree> PyTree for BTreeMap<String, T> {
    fn flatten_into(&self, leaves: &mut Vec<Array>) -> TreeDef {
        TreeDef::dict(
            self.iter()
                .map(|(k, v)| (k.clone(), v.flatten_into(leaves)))
                .collect(),
        )
    }

    fn unflatten_from(def: &TreeDef, leaves: &mut Leaves<'_>) -> Result<Self> {
        unflatten_dict(def, leaves)?.into_iter().collect()
    }
}

/// A map node, children in sorted key order (the same structure as the `BTreeMap` with the
/// same keys), keys `['k']`.
impl<T: PyTree, S: BuildHasher + Default> PyTree for HashMap<String, T, S> {
    fn flatten_into(&self, leaves: &mut Vec<Array>) -> TreeDef {
        let mut entries: Vec<(&String, &T)> = self.iter().collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
        TreeDef::dict(
            entries
                .into_iter()
                .map(|(k, v)| (k.clone(), v.flatten_into(leaves)))
                .collect(),
        )
    }

    fn unflatten_from(def: &TreeDef, leaves: &mut Leaves<'_>) -> Result<Self> {
        unflatten_dict(def, leaves)?.into_iter().collect()
    }
}

fn unflatten_dict<T: PyTree>(
    def: &TreeDef,
    leaves: &mut Leaves<'_>,
) -> Result<Vec<Result<(String, T)>>> {
    let Kind::Dict(keys) = &def.0.kind else {
        return Err(leaves.mismatch("a map", def));
    };
    Ok(keys
        .iter()
        .zip(def.children())
        .map(|(k, d)| Ok((k.clone(), leaves.child(KeyEntry::Key(k.clone()), d)?)))
        .collect())
}

macro_rules! static_impl {
    ($($t:ty),*) => {$(
        /// Static: the value is carried in the `TreeDef` (compared and hashed), not a leaf.
        impl PyTree for $t {
            fn flatten_into(&self, _leaves: &mut Vec<Array>) -> TreeDef {
                TreeDef::constant(self.clone())
            }

            fn unflatten_from(def: &TreeDef, leaves: &mut Leaves<'_>) -> Result<Self> {
                leaves.constant(def)
            }
        }
    )*};
}

static_impl!(
    bool,
    char,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    String,
    &'static str
);

macro_rules! static_float_impl {
    ($($t:ty),*) => {$(
        /// Static: the value is carried in the `TreeDef` (compared and hashed by bits), not a
        /// leaf. To trace a scalar, make it an `Array` (`Array::scalar(x)`).
        impl PyTree for $t {
            fn flatten_into(&self, _leaves: &mut Vec<Array>) -> TreeDef {
                TreeDef::constant(StaticFloat(*self))
            }

            fn unflatten_from(def: &TreeDef, leaves: &mut Leaves<'_>) -> Result<Self> {
                leaves.constant::<StaticFloat<$t>>(def).map(|x| x.0)
            }
        }
    )*};
}

static_float_impl!(f32, f64, f16);
