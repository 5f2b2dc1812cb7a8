//! Pytrees: nested structures of [`Array`]s that cross the transformation boundary.
//!
//! A pytree is a value whose type implements [`PyTree`]: it [flattens](tree_flatten) into
//! its leaves (the arrays, in a fixed order) and a [`TreeDef`] (everything else: the
//! nesting, map keys, struct names and static metadata), and is rebuilt from leaves and a
//! `TreeDef` ([`tree_unflatten`]). Transformations see only the leaves; a `TreeDef` is
//! `Eq + Hash`, so it can key a cache.
//!
//! ```
//! use olympus::{numpy as np, tree, Array};
//!
//! let w = np::array(&[1.0f32, 2.0])?;
//! let b = np::array(&[0.5f32])?;
//! let params = vec![(w.clone(), b.clone()), (w, b)];
//! let (leaves, def) = tree::tree_flatten(&params);
//! assert_eq!(def.to_string(), "PyTreeDef([(*, *), (*, *)])");
//! assert_eq!(leaves.len(), 4);
//!
//! let doubled: Vec<(Array, Array)> = tree::tree_map(|x| np::multiply(x, 2.0), &params)?;
//! assert_eq!(doubled[1].0.to_vec::<f32>()?, [2.0, 4.0]);
//! # Ok::<(), olympus::Error>(())
//! ```
//!
//! # Node kinds
//!
//! | type | node | display | key of a child |
//! |---|---|---|---|
//! | [`Array`] | a leaf | `*` | |
//! | `()` and tuples up to 12 | tuple | `(*, *)` | `[i]` |
//! | `Vec<T>`, `[T; N]` | list (the same for both) | `[*, *]` | `[i]` |
//! | `Option<T>` | `None`: a node without children, **not a leaf**; `Some`: one child | `None`, `Some(*)` | none |
//! | `BTreeMap<String, T>`, `HashMap<String, T>` | map, children in sorted key order (the same for both) | `{'a': *}` | `['a']` |
//! | `Box<T>` | transparent: `T`'s structure | | |
//! | structs ([`register_pytree!`](crate::register_pytree)) | struct | `Layer { w: *, act: "relu" }` | `.w` (`.0` in a tuple struct) |
//! | Rust scalars, `String`, `&'static str` | static value, no children | `0.5`, `"relu"` | |
//!
//! # Rust scalars are static, not leaves
//!
//! JAX treats Python scalars as leaves. Here `f32`, `f64`, `half::f16`, the integers,
//! `bool`, `char`, `String` and `&'static str` are **static**: the value is carried in the
//! `TreeDef` (compared and hashed; floats by their bits), never handed to a transformation,
//! and cloned back out on unflatten. A traced value is an `Array` and cannot become an
//! `f32` again, so a scalar leaf could not be rebuilt. **To trace a scalar, make it an
//! `Array`** (`Array::scalar(x)` or `np::array(x)`). Two trees that differ in a scalar have
//! different `TreeDef`s.
//!
//! # Key paths
//!
//! [`tree_flatten_with_path`] and [`tree_map_with_path`] give each leaf its [`KeyPath`],
//! displayed JAX-style by concatenating one [`KeyEntry`] per step: a struct field `.name`
//! (`.0` for a tuple struct), a map key `['k']`, a tuple, `Vec` or array index `[0]`. So
//! `.params['w'][0]`. `Some` and `Box` add no entry; the root's path is empty (`""`).
//!
//! # Mapping over several trees
//!
//! [`tree_map`] maps one tree; [`tree_map2`] two trees leaf by leaf; [`tree_map_n`] several,
//! with JAX's `tree_map(f, tree, *rest)` semantics: the result has the first tree's
//! structure, and each later tree must have the first tree's structure **as a prefix**: at
//! each leaf of the first tree, a later tree may hold a whole subtree, which `f` receives
//! (rebuilt as the type `f` asks for). Everywhere else the nodes must agree exactly: same
//! kind, arity, map keys, struct name, field names and static metadata; a `None` matches
//! only `None`. A mismatch is an [`Error::InvalidArgument`](crate::Error) naming the key
//! path where the trees differ:
//!
//! ```
//! use olympus::{numpy as np, tree, Array};
//! let x = np::array(&[1.0f32])?;
//! let err = tree::tree_map2(|a, b| np::add(a, b), &(x.clone(), x.clone()),
//!                           &(x.clone(), vec![x.clone(), x.clone()]))
//!     .unwrap_err();
//! assert!(err.to_string().contains("at key path [1]"), "{err}");
//!
//! // A prefix: each leaf of the first tree meets a pair in the second.
//! let pairs = vec![(x.clone(), x.clone()), (x.clone(), x.clone())];
//! let sums: Vec<Array> = tree::tree_map_n(
//!     |a, rest: &[(Array, Array)]| np::add(a, np::add(&rest[0].0, &rest[0].1)?),
//!     &vec![x.clone(), x.clone()],
//!     &[&pairs],
//! )?;
//! assert_eq!(sums[1].to_vec::<f32>()?, [3.0]);
//! # Ok::<(), olympus::Error>(())
//! ```
//!
//! # Your own types
//!
//! [`register_pytree!`](crate::register_pytree) implements [`PyTree`] for a struct with
//! named fields or a tuple struct, listing its fields in leaf order; fields marked
//! `#[static]` are metadata in the `TreeDef` (any `Clone + Eq + Hash + Debug + Send + Sync
//! + 'static` type; wrap floats in [`StaticFloat`], or leave a float field unmarked: scalars
//! are static anyway). `register_pytree!(static T)` makes a whole type static.
//!
//! ```
//! use olympus::{numpy as np, tree, Array};
//!
//! #[derive(Clone, Debug)]
//! struct Layer { w: Array, b: Array, activation: String }
//! olympus::register_pytree!(Layer { w, b, #[static] activation });
//!
//! struct Pair(Array, Array);
//! olympus::register_pytree!(Pair(0, 1));
//!
//! let x = np::array(&[1.0f32, 2.0])?;
//! let layer = Layer { w: x.clone(), b: x.clone(), activation: "relu".into() };
//! assert_eq!(tree::tree_structure(&layer).to_string(),
//!            "PyTreeDef(Layer { w: *, b: *, activation: \"relu\" })");
//! assert_eq!(tree::tree_structure(&Pair(x.clone(), x)).to_string(), "PyTreeDef(Pair(*, *))");
//! # Ok::<(), olympus::Error>(())
//! ```
//!
//! For types the macro does not fit (generic structs, enums, types with private
//! invariants), implement the trait by hand: build the node with
//! [`TreeDef::build_struct`] and read it back with [`StructReader`], in the same field order.
//! (Or flatten into an existing pytree, such as a tuple, and rebuild from it.)
//!
//! ```
//! use olympus::tree::{self, Leaves, PyTree, StructReader, TreeDef};
//! use olympus::{numpy as np, Array, Result};
//!
//! struct Scaled<T> { inner: T, label: String }
//!
//! impl<T: PyTree> PyTree for Scaled<T> {
//!     fn flatten_into(&self, leaves: &mut Vec<Array>) -> TreeDef {
//!         TreeDef::build_struct("Scaled")
//!             .field("inner", self.inner.flatten_into(leaves))
//!             .static_field("label", self.label.clone())
//!             .build()
//!     }
//!
//!     fn unflatten_from(def: &TreeDef, leaves: &mut Leaves<'_>) -> Result<Self> {
//!         let mut r = StructReader::open(def, leaves, "Scaled")?;
//!         let value = Scaled { inner: r.field("inner")?, label: r.static_field("label")? };
//!         r.finish()?;
//!         Ok(value)
//!     }
//! }
//!
//! let s = Scaled { inner: vec![np::array(&[1.0f32])?], label: "x".to_string() };
//! let (leaves, def) = tree::tree_flatten(&s);
//! assert_eq!(def.to_string(), "PyTreeDef(Scaled { inner: [*], label: \"x\" })");
//! let back: Scaled<Vec<Array>> = tree::tree_unflatten(&def, leaves)?;
//! assert_eq!(back.label, "x");
//! # Ok::<(), olympus::Error>(())
//! ```
//!
//! Flattening never looks at leaf values and unflattening builds leaves only from the
//! arrays it is given, so the same code works when the arrays are tracers.

mod def;
mod impls;
mod macros;

use std::fmt;

pub use def::{KeyEntry, KeyPath, NodeBuilder, NodeKind, StaticFloat, StaticValue, TreeDef};

use def::{at_path, FieldDef, Kind};

use crate::array::Array;
use crate::error::{Error, Result};

/// A type that flattens into [`Array`] leaves and a [`TreeDef`], and is rebuilt from them.
///
/// See the [module docs](self) for the implementations provided, for
/// [`register_pytree!`](crate::register_pytree), and for a manual implementation.
/// Implementations must push leaves in the same order as `unflatten_from` consumes them,
/// and never inspect leaf values.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a pytree",
    label = "transformations (jit, grad, vmap) take pytrees: arrays, tuples, Vecs, maps and registered types",
    note = "register `{Self}` with `olympus::register_pytree!`, or convert it with `olympus::numpy::asarray` first; the array-conversion protocol is never used at a transformation boundary"
)]
pub trait PyTree: Sized {
    /// Pushes this value's leaves onto `leaves`, in order, and returns its structure.
    fn flatten_into(&self, leaves: &mut Vec<Array>) -> TreeDef;

    /// Rebuilds a value of this type from `def` and the next `def.num_leaves()` leaves.
    /// Fails (naming the key path) when `def` is not a structure of this type.
    fn unflatten_from(def: &TreeDef, leaves: &mut Leaves<'_>) -> Result<Self>;
}

/// The leaves being consumed by [`PyTree::unflatten_from`], with the key path of the node
/// being rebuilt (for error messages).
pub struct Leaves<'a> {
    iter: &'a mut dyn Iterator<Item = Array>,
    path: Vec<KeyEntry>,
    func: &'static str,
}

impl<'a> Leaves<'a> {
    pub(crate) fn new(
        iter: &'a mut dyn Iterator<Item = Array>,
        func: &'static str,
        path: Vec<KeyEntry>,
    ) -> Leaves<'a> {
        Leaves { iter, path, func }
    }

    /// The next leaf; `def` must be a leaf's structure.
    pub fn leaf(&mut self, def: &TreeDef) -> Result<Array> {
        if !def.is_leaf() {
            return Err(self.mismatch("a leaf", def));
        }
        self.iter
            .next()
            .ok_or_else(|| self.error("ran out of leaves"))
    }

    /// Rebuilds the child at `key` (appended to the key path while it is rebuilt).
    pub fn child<T: PyTree>(&mut self, key: KeyEntry, def: &TreeDef) -> Result<T> {
        self.child_opt(Some(key), def)
    }

    pub(crate) fn child_opt<T: PyTree>(
        &mut self,
        key: Option<KeyEntry>,
        def: &TreeDef,
    ) -> Result<T> {
        let pushed = key.is_some();
        if let Some(k) = key {
            self.path.push(k);
        }
        let r = T::unflatten_from(def, self);
        if pushed {
            self.path.pop();
        }
        r
    }

    /// The static value of a node made by [`TreeDef::constant`].
    pub fn constant<V: StaticValue + Clone>(&self, def: &TreeDef) -> Result<V> {
        match &def.0.kind {
            Kind::Static(v) => v.as_any().downcast_ref::<V>().cloned().ok_or_else(|| {
                self.error(format!(
                    "expected a static `{}`, found {v:?}",
                    std::any::type_name::<V>()
                ))
            }),
            _ => Err(self.mismatch(&format!("a static `{}`", std::any::type_name::<V>()), def)),
        }
    }

    /// The key path of the node being rebuilt.
    pub fn path(&self) -> KeyPath {
        KeyPath(self.path.clone())
    }

    /// An [`Error::InvalidArgument`] from the running function, saying `reason` and the
    /// key path.
    pub fn error(&self, reason: impl fmt::Display) -> Error {
        Error::arg(self.func, format!("{reason} {}", at_path(&self.path)))
    }

    /// `expected {what}, found {def}`.
    pub(crate) fn mismatch(&self, what: &str, def: &TreeDef) -> Error {
        self.error(format!(
            "expected {what}, found {} `{}`",
            def.describe(),
            def.inner_string()
        ))
    }

    /// The children of `def`, which must be of `kind` (compared by variant) and arity.
    pub(crate) fn expect_node<'d>(
        &self,
        def: &'d TreeDef,
        kind: &Kind,
        arity: Option<usize>,
        what: &str,
    ) -> Result<&'d [TreeDef]> {
        let c = def.children();
        if std::mem::discriminant(&def.0.kind) != std::mem::discriminant(kind)
            || arity.is_some_and(|n| n != c.len())
        {
            return Err(self.mismatch(what, def));
        }
        Ok(c)
    }
}

/// Reads back a struct node built with [`TreeDef::build_struct`] (or
/// [`build_tuple_struct`](TreeDef::build_tuple_struct)), field by field in the order they
/// were added; see the [module docs](self) for an example.
pub struct StructReader<'r, 'a> {
    def: &'r TreeDef,
    name: &'r str,
    fields: &'r [FieldDef],
    leaves: &'r mut Leaves<'a>,
    field: usize,
    child: usize,
}

impl<'r, 'a> StructReader<'r, 'a> {
    /// Starts reading `def`, which must be a struct node called `name`.
    pub fn open(
        def: &'r TreeDef,
        leaves: &'r mut Leaves<'a>,
        name: &str,
    ) -> Result<StructReader<'r, 'a>> {
        match &def.0.kind {
            Kind::Struct {
                name: n, fields, ..
            } if n == name => Ok(StructReader {
                def,
                name: n,
                fields,
                leaves,
                field: 0,
                child: 0,
            }),
            _ => Err(leaves.mismatch(&format!("a struct `{name}`"), def)),
        }
    }

    fn next_field(&mut self, name: &str, want_static: bool) -> Result<&'r FieldDef> {
        let fields: &'r [FieldDef] = self.fields;
        match fields.get(self.field) {
            Some(f) if f.name == name && f.value.is_some() == want_static => {
                self.field += 1;
                Ok(f)
            }
            other => Err(self.leaves.error(format!(
                "struct `{}` expected {} field `{name}` next, found {}",
                self.name,
                if want_static { "static" } else { "child" },
                match other {
                    Some(f) if f.value.is_some() => format!("static field `{}`", f.name),
                    Some(f) => format!("child field `{}`", f.name),
                    None => "no more fields".to_string(),
                }
            ))),
        }
    }

    /// Rebuilds the next field, a child called `name`.
    pub fn field<T: PyTree>(&mut self, name: &str) -> Result<T> {
        let f = self.next_field(name, false)?;
        let def: &'r TreeDef = self.def;
        let child = def
            .children()
            .get(self.child)
            .ok_or_else(|| self.leaves.error("struct node has too few children"))?;
        self.child += 1;
        self.leaves.child(KeyEntry::Field(f.name.clone()), child)
    }

    /// Clones out the next field, static metadata called `name`, as a `V`.
    pub fn static_field<V: StaticValue + Clone>(&mut self, name: &str) -> Result<V> {
        let f = self.next_field(name, true)?;
        match f.value.as_deref() {
            Some(v) => v.as_any().downcast_ref::<V>().cloned().ok_or_else(|| {
                self.leaves.error(format!(
                    "static field `{name}` of `{}` holds {v:?}, not a `{}`",
                    self.name,
                    std::any::type_name::<V>()
                ))
            }),
            None => Err(self.leaves.error(format!("field `{name}` is not static"))),
        }
    }

    /// Checks that every field was read.
    pub fn finish(self) -> Result<()> {
        match self.fields.get(self.field) {
            None => Ok(()),
            Some(f) => Err(self.leaves.error(format!(
                "struct `{}` has a field `{}` the type does not read",
                self.name, f.name
            ))),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Flatten and unflatten
// ---------------------------------------------------------------------------------------

/// The leaves of `tree`, in order, and its structure.
///
/// ```
/// use olympus::{numpy as np, tree};
/// let x = np::array(&[1.0f32])?;
/// let (leaves, def) = tree::tree_flatten(&(x.clone(), None::<olympus::Array>, vec![x]));
/// assert_eq!(leaves.len(), 2);
/// assert_eq!(def.to_string(), "PyTreeDef((*, None, [*]))");
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn tree_flatten<T: PyTree>(tree: &T) -> (Vec<Array>, TreeDef) {
    let mut leaves = Vec::new();
    let def = tree.flatten_into(&mut leaves);
    (leaves, def)
}

/// Rebuilds a `T` from its structure and leaves (in [`tree_flatten`]'s order).
///
/// Fails when the number of leaves is not `treedef.num_leaves()`, or when `treedef` is not
/// a structure of `T` (naming the key path where they differ).
///
/// ```
/// use olympus::{numpy as np, tree, Array};
/// let x = np::array(&[1.0f32])?;
/// let def = tree::tree_structure(&(x.clone(), x.clone()));
/// let pair: (Array, Array) = tree::tree_unflatten(&def, [x.clone(), x.clone()])?;
/// assert!(tree::tree_unflatten::<(Array, Array)>(&def, [x.clone()]).is_err());
/// assert!(tree::tree_unflatten::<Vec<Array>>(&def, [x.clone(), x]).is_err());
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn tree_unflatten<T: PyTree>(
    treedef: &TreeDef,
    leaves: impl IntoIterator<Item = Array>,
) -> Result<T> {
    unflatten_in("tree_unflatten", treedef, leaves.into_iter().collect())
}

fn unflatten_in<T: PyTree>(func: &'static str, def: &TreeDef, leaves: Vec<Array>) -> Result<T> {
    if leaves.len() != def.num_leaves() {
        return Err(Error::arg(
            func,
            format!(
                "{def} has {} leaves, but {} were given",
                def.num_leaves(),
                leaves.len()
            ),
        ));
    }
    let mut it = leaves.into_iter();
    let mut lv = Leaves::new(&mut it, func, Vec::new());
    let t = T::unflatten_from(def, &mut lv)?;
    if it.next().is_some() {
        return Err(Error::arg(
            func,
            format!(
                "the type did not consume all {} leaves of {def}",
                def.num_leaves()
            ),
        ));
    }
    Ok(t)
}

/// The leaves of `tree`, in order.
pub fn tree_leaves<T: PyTree>(tree: &T) -> Vec<Array> {
    tree_flatten(tree).0
}

/// The structure of `tree`.
pub fn tree_structure<T: PyTree>(tree: &T) -> TreeDef {
    tree_flatten(tree).1
}

/// The leaves of `tree` with their key paths, and its structure.
///
/// ```
/// use olympus::{numpy as np, tree};
/// use std::collections::BTreeMap;
/// let x = np::array(&[1.0f32])?;
/// let mut params = BTreeMap::new();
/// params.insert("w".to_string(), vec![x.clone(), x]);
/// let (leaves, _) = tree::tree_flatten_with_path(&(params,));
/// assert_eq!(leaves[1].0.to_string(), "[0]['w'][1]");
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn tree_flatten_with_path<T: PyTree>(tree: &T) -> (Vec<(KeyPath, Array)>, TreeDef) {
    let (leaves, def) = tree_flatten(tree);
    (def.key_paths().into_iter().zip(leaves).collect(), def)
}

/// The leaves of `tree` with their key paths.
pub fn tree_leaves_with_path<T: PyTree>(tree: &T) -> Vec<(KeyPath, Array)> {
    tree_flatten_with_path(tree).0
}

// ---------------------------------------------------------------------------------------
// Maps and reductions
// ---------------------------------------------------------------------------------------

/// `tree` with `f` applied to each leaf.
pub fn tree_map<T: PyTree>(mut f: impl FnMut(&Array) -> Result<Array>, tree: &T) -> Result<T> {
    let (leaves, def) = tree_flatten(tree);
    let out = leaves.iter().map(&mut f).collect::<Result<Vec<_>>>()?;
    unflatten_in("tree_map", &def, out)
}

/// `tree` with `f` applied to each leaf and its key path.
///
/// ```
/// use olympus::{numpy as np, tree, Array};
/// let x = np::array(&[1.0f32])?;
/// let t = (x.clone(), vec![x]);
/// let t: (Array, Vec<Array>) = tree::tree_map_with_path(
///     |path, leaf| if path.to_string() == "[1][0]" { np::multiply(leaf, 3.0) } else { Ok(leaf.clone()) },
///     &t,
/// )?;
/// assert_eq!(t.1[0].to_vec::<f32>()?, [3.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn tree_map_with_path<T: PyTree>(
    mut f: impl FnMut(&KeyPath, &Array) -> Result<Array>,
    tree: &T,
) -> Result<T> {
    let (leaves, def) = tree_flatten_with_path(tree);
    let out = leaves
        .iter()
        .map(|(p, x)| f(p, x))
        .collect::<Result<Vec<_>>>()?;
    unflatten_in("tree_map_with_path", &def, out)
}

/// `tree` with `f` applied to each pair of corresponding leaves of `tree` and `other`,
/// which must have the same structure (of any type). To let `other` hold whole subtrees
/// where `tree` has leaves, use [`tree_map_n`].
///
/// ```
/// use olympus::{numpy as np, tree, Array};
/// let params = vec![np::array(&[1.0f32, 2.0])?];
/// let grads = vec![np::array(&[10.0f32, 10.0])?];
/// let new: Vec<Array> = tree::tree_map2(
///     |p, g| np::subtract(p, np::multiply(g, 0.1)?), &params, &grads)?;
/// assert_eq!(new[0].to_vec::<f32>()?, [0.0, 1.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn tree_map2<T: PyTree, U: PyTree>(
    mut f: impl FnMut(&Array, &Array) -> Result<Array>,
    tree: &T,
    other: &U,
) -> Result<T> {
    tree_map_impl(
        "tree_map2",
        |x, rest: &[Array]| f(x, &rest[0]),
        tree,
        &[other],
    )
}

/// JAX's `tree_map(f, tree, *rest)`: `tree` with `f(leaf, subtrees)` applied at each of its
/// leaves, where `subtrees[i]` is the part of `rest[i]` at that leaf's position, rebuilt as
/// an `A` (an [`Array`] when `rest[i]` has the same structure as `tree`).
///
/// Each tree in `rest` must have `tree`'s structure as a prefix: the same nodes down to
/// `tree`'s leaves (kind, arity, keys, struct name, static metadata; `None` only matches
/// `None`), and anything at those leaves. Otherwise the error names the tree and the key
/// path where it differs. See the [module docs](self) for an example.
pub fn tree_map_n<T: PyTree, U: PyTree, A: PyTree>(
    f: impl FnMut(&Array, &[A]) -> Result<Array>,
    tree: &T,
    rest: &[&U],
) -> Result<T> {
    tree_map_impl("tree_map_n", f, tree, rest)
}

fn tree_map_impl<T: PyTree, U: PyTree, A: PyTree>(
    func: &'static str,
    mut f: impl FnMut(&Array, &[A]) -> Result<Array>,
    tree: &T,
    rest: &[&U],
) -> Result<T> {
    let (leaves, def) = tree_flatten(tree);
    let mut subtrees = Vec::with_capacity(rest.len());
    for (i, r) in rest.iter().enumerate() {
        let which = format!("tree {} (of {})", i + 2, rest.len() + 1);
        subtrees.push(flatten_up_to::<U, A>(func, &which, &def, r)?.into_iter());
    }
    let mut out = Vec::with_capacity(leaves.len());
    for leaf in &leaves {
        let args: Vec<A> = subtrees.iter_mut().filter_map(Iterator::next).collect();
        out.push(f(leaf, &args)?);
    }
    unflatten_in(func, &def, out)
}

impl TreeDef {
    /// The parts of `tree` at this structure's leaves, each rebuilt as an `A` (JAX's
    /// `treedef.flatten_up_to`): `self` must be a prefix of `tree`'s structure.
    ///
    /// ```
    /// use olympus::{numpy as np, tree, Array};
    /// let x = np::array(&[1.0f32])?;
    /// let prefix = tree::tree_structure(&(x.clone(), x.clone()));
    /// let parts: Vec<Vec<Array>> = prefix.flatten_up_to(&(vec![x.clone()], vec![x.clone(), x]))?;
    /// assert_eq!((parts[0].len(), parts[1].len()), (1, 2));
    /// # Ok::<(), olympus::Error>(())
    /// ```
    pub fn flatten_up_to<U: PyTree, A: PyTree>(&self, tree: &U) -> Result<Vec<A>> {
        flatten_up_to("TreeDef::flatten_up_to", "the tree", self, tree)
    }
}

fn flatten_up_to<U: PyTree, A: PyTree>(
    func: &'static str,
    which: &str,
    prefix: &TreeDef,
    tree: &U,
) -> Result<Vec<A>> {
    struct Span {
        def: TreeDef,
        start: usize,
        path: Vec<KeyEntry>,
    }
    fn walk(
        prefix: &TreeDef,
        full: &TreeDef,
        path: &mut Vec<KeyEntry>,
        offset: &mut usize,
        out: &mut Vec<Span>,
    ) -> std::result::Result<(), String> {
        if prefix.is_leaf() {
            out.push(Span {
                def: full.clone(),
                start: *offset,
                path: path.clone(),
            });
            *offset += full.num_leaves();
            return Ok(());
        }
        if !prefix.same_node(full) {
            return Err(format!(
                "{}: expected {} `{}`, found {} `{}` ({})",
                at_path(path),
                prefix.describe(),
                prefix.inner_string(),
                full.describe(),
                full.inner_string(),
                prefix.node_difference(full)
            ));
        }
        let keys = prefix.child_keys();
        for ((key, p), t) in keys.into_iter().zip(prefix.children()).zip(full.children()) {
            let pushed = key.is_some();
            if let Some(k) = key {
                path.push(k);
            }
            walk(p, t, path, offset, out)?;
            if pushed {
                path.pop();
            }
        }
        Ok(())
    }

    let (leaves, def) = tree_flatten(tree);
    let mut spans = Vec::with_capacity(prefix.num_leaves());
    walk(prefix, &def, &mut Vec::new(), &mut 0, &mut spans).map_err(|reason| {
        Error::arg(
            func,
            format!("{which} does not have the first tree's structure as a prefix {reason}"),
        )
    })?;
    spans
        .into_iter()
        .map(|s| {
            let end = s.start + s.def.num_leaves();
            let mut it = leaves.get(s.start..end).unwrap_or(&[]).iter().cloned();
            let mut lv = Leaves::new(&mut it, func, s.path);
            A::unflatten_from(&s.def, &mut lv).map_err(|e| {
                let msg = strip_func(func, &e);
                let takes = std::any::type_name::<A>();
                Error::arg(func, format!("{which}: {msg} (f takes a `{takes}` there)"))
            })
        })
        .collect()
}

/// The message of `e` without its `func: ` prefix.
fn strip_func(func: &str, e: &Error) -> String {
    let s = e.to_string();
    match s.strip_prefix(func).and_then(|r| r.strip_prefix(": ")) {
        Some(r) => r.to_string(),
        None => s,
    }
}

/// Folds `f` over the leaves of `tree` in order, starting from `initial` (JAX's
/// `tree_reduce` with an initializer; without one, use
/// `tree_leaves(&t).into_iter().reduce(..)`).
///
/// ```
/// use olympus::{numpy as np, tree};
/// let t = (np::array(&[1.0f32, 2.0])?, vec![np::array(&[3.0f32])?]);
/// let total = tree::tree_reduce(|acc, x| np::add(acc, np::sum(x, None, false)?),
///                               &t, np::array(0.0f32)?)?;
/// assert_eq!(total.item::<f32>()?, 6.0);
/// let count = tree::tree_reduce(|n, x| Ok(n + x.size()), &t, 0)?;
/// assert_eq!(count, 3);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn tree_reduce<T: PyTree, Acc>(
    f: impl FnMut(Acc, &Array) -> Result<Acc>,
    tree: &T,
    initial: Acc,
) -> Result<Acc> {
    tree_leaves(tree).iter().try_fold(initial, f)
}

/// Whether every leaf of `tree` is true (JAX's `tree_all`: `all(tree_leaves(tree))`). Each
/// leaf must hold exactly one element (Python's `bool(array)`); nonzero is true (NaN too).
/// Reads the leaves back, stopping at the first false one; an empty tree is true.
///
/// ```
/// use olympus::{numpy as np, tree};
/// let t = (np::array(true)?, vec![np::array(2.0f32)?]);
/// assert!(tree::tree_all(&t)?);
/// assert!(!tree::tree_all(&(np::array(true)?, np::array(0i32)?))?);
/// assert!(tree::tree_all(&(np::array(&[1.0f32, 1.0])?,)).is_err());
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn tree_all<T: PyTree>(tree: &T) -> Result<bool> {
    for (path, x) in tree_leaves_with_path(tree) {
        if x.size() != 1 {
            return Err(Error::arg(
                "tree_all",
                format!(
                    "the truth value of an array of shape {} is ambiguous (leaf {})",
                    crate::error::fmt_shape(x.shape()),
                    at_path(&path).trim_start_matches("at ")
                ),
            ));
        }
        if x.to_f64_vec()?.first().is_some_and(|&v| v == 0.0) {
            return Ok(false);
        }
    }
    Ok(true)
}
