//! `TreeDef` (the structure of a pytree), its static metadata, and key paths.

use std::any::{Any, TypeId};
use std::borrow::Cow;
use std::collections::hash_map::DefaultHasher;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

use half::f16;

// ---------------------------------------------------------------------------------------
// Static metadata
// ---------------------------------------------------------------------------------------

/// A value carried in a [`TreeDef`] as static metadata (a struct's `#[static]` field, a
/// Rust scalar, a `String`): compared and hashed with the structure, cloned back out on
/// unflatten, never a leaf.
///
/// Implemented for every `T: Any + Clone + Eq + Hash + Debug + Send + Sync`. Floats are not
/// `Eq`/`Hash`; wrap them in [`StaticFloat`] (compared and hashed by bits).
pub trait StaticValue: Any + fmt::Debug + Send + Sync {
    /// The value as `Any`, for downcasting.
    fn as_any(&self) -> &dyn Any;
    /// Equality with another static value (false when the types differ).
    fn dyn_eq(&self, other: &dyn StaticValue) -> bool;
    /// Feeds the value (and its type) to `state`.
    fn dyn_hash(&self, state: &mut dyn Hasher);
}

impl<T: Any + Clone + Eq + Hash + fmt::Debug + Send + Sync> StaticValue for T {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn dyn_eq(&self, other: &dyn StaticValue) -> bool {
        other.as_any().downcast_ref::<T>() == Some(self)
    }

    fn dyn_hash(&self, mut state: &mut dyn Hasher) {
        TypeId::of::<T>().hash(&mut state);
        self.hash(&mut state);
    }
}

/// A float usable as static metadata: equal and hashed by its bit pattern (so `NaN == NaN`
/// and `0.0 != -0.0`), printed as the float. Implemented for `f32`, `f64` and `half::f16`.
///
/// ```
/// use olympus::tree::StaticFloat;
/// assert_eq!(StaticFloat(0.5f32), StaticFloat(0.5f32));
/// assert_ne!(StaticFloat(0.0f32), StaticFloat(-0.0f32));
/// assert_eq!(format!("{:?}", StaticFloat(0.5f64)), "0.5");
/// ```
#[derive(Clone, Copy)]
pub struct StaticFloat<F>(pub F);

macro_rules! static_float {
    ($($t:ty),*) => {$(
        impl PartialEq for StaticFloat<$t> {
            fn eq(&self, other: &Self) -> bool {
                self.0.to_bits() == other.0.to_bits()
            }
        }
        impl Eq for StaticFloat<$t> {}
        impl Hash for StaticFloat<$t> {
            fn hash<H: Hasher>(&self, state: &mut H) {
                self.0.to_bits().hash(state);
            }
        }
        impl fmt::Debug for StaticFloat<$t> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.0, f)
            }
        }
    )*};
}
static_float!(f32, f64, f16);

// ---------------------------------------------------------------------------------------
// Key paths
// ---------------------------------------------------------------------------------------

/// One step of a [`KeyPath`]: how a node reaches one of its children.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum KeyEntry {
    /// A struct field, shown `.name` (`.0` for a tuple struct's field).
    Field(Cow<'static, str>),
    /// A map key (`BTreeMap`, `HashMap`), shown `['k']`.
    Key(String),
    /// A position in a tuple, `Vec` or array, shown `[i]`.
    Index(usize),
}

impl fmt::Display for KeyEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyEntry::Field(name) => write!(f, ".{name}"),
            KeyEntry::Key(k) => {
                f.write_str("[")?;
                write_quoted(f, k)?;
                f.write_str("]")
            }
            KeyEntry::Index(i) => write!(f, "[{i}]"),
        }
    }
}

/// Writes `s` in single quotes, escaping `\` and `'` (Python's `repr` of a plain string).
fn write_quoted(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    f.write_str("'")?;
    for c in s.chars() {
        match c {
            '\'' => f.write_str("\\'")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            c => write!(f, "{c}")?,
        }
    }
    f.write_str("'")
}

/// The path from a tree's root to one of its nodes, e.g. `.params['w'][0]`.
///
/// Displayed by concatenating its entries ([`KeyEntry`]); the root's path is empty and
/// displays as `""`. `Option`'s `Some` and `Box` add no entry (they are transparent in
/// paths). Dereferences to `[KeyEntry]`.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct KeyPath(pub Vec<KeyEntry>);

impl KeyPath {
    /// The entries, root first.
    pub fn entries(&self) -> &[KeyEntry] {
        &self.0
    }
}

impl std::ops::Deref for KeyPath {
    type Target = [KeyEntry];
    fn deref(&self) -> &[KeyEntry] {
        &self.0
    }
}

impl fmt::Display for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s: String = self.0.iter().map(|e| e.to_string()).collect();
        f.pad(&s)
    }
}

impl fmt::Debug for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KeyPath({:?})", self.to_string())
    }
}

/// `at key path .a[0]`, or `at the root`.
pub(crate) fn at_path(path: &[KeyEntry]) -> String {
    if path.is_empty() {
        "at the root".to_string()
    } else {
        let mut s = String::from("at key path ");
        for e in path {
            s.push_str(&e.to_string());
        }
        s
    }
}

// ---------------------------------------------------------------------------------------
// TreeDef
// ---------------------------------------------------------------------------------------

/// One field of a struct node: a child (`value: None`) or static metadata.
#[derive(Clone)]
pub(crate) struct FieldDef {
    pub(crate) name: Cow<'static, str>,
    pub(crate) value: Option<Arc<dyn StaticValue>>,
}

#[derive(Clone)]
pub(crate) enum Kind {
    Leaf,
    None,
    Some,
    Tuple,
    List,
    Dict(Vec<String>),
    Struct {
        name: Cow<'static, str>,
        tuple_style: bool,
        fields: Vec<FieldDef>,
    },
    Static(Arc<dyn StaticValue>),
}

impl Kind {
    /// Same node, children aside (arity is compared with the children).
    fn same(&self, other: &Kind) -> bool {
        match (self, other) {
            (Kind::Leaf, Kind::Leaf)
            | (Kind::None, Kind::None)
            | (Kind::Some, Kind::Some)
            | (Kind::Tuple, Kind::Tuple)
            | (Kind::List, Kind::List) => true,
            (Kind::Dict(a), Kind::Dict(b)) => a == b,
            (
                Kind::Struct {
                    name: n1,
                    tuple_style: t1,
                    fields: f1,
                },
                Kind::Struct {
                    name: n2,
                    tuple_style: t2,
                    fields: f2,
                },
            ) => {
                n1 == n2
                    && t1 == t2
                    && f1.len() == f2.len()
                    && f1.iter().zip(f2).all(|(a, b)| {
                        a.name == b.name
                            && match (&a.value, &b.value) {
                                (None, None) => true,
                                (Some(x), Some(y)) => x.dyn_eq(&**y),
                                _ => false,
                            }
                    })
            }
            (Kind::Static(a), Kind::Static(b)) => a.dyn_eq(&**b),
            _ => false,
        }
    }

    fn hash_into(&self, h: &mut DefaultHasher) {
        match self {
            Kind::Leaf => 0u8.hash(h),
            Kind::None => 1u8.hash(h),
            Kind::Some => 2u8.hash(h),
            Kind::Tuple => 3u8.hash(h),
            Kind::List => 4u8.hash(h),
            Kind::Dict(keys) => {
                5u8.hash(h);
                keys.hash(h);
            }
            Kind::Struct {
                name,
                tuple_style,
                fields,
            } => {
                6u8.hash(h);
                name.hash(h);
                tuple_style.hash(h);
                for f in fields {
                    f.name.hash(h);
                    match &f.value {
                        None => 0u8.hash(h),
                        Some(v) => {
                            1u8.hash(h);
                            v.dyn_hash(h);
                        }
                    }
                }
            }
            Kind::Static(v) => {
                7u8.hash(h);
                v.dyn_hash(h);
            }
        }
    }

    /// What the node is, in words, for error messages.
    fn describe(&self, arity: usize) -> String {
        match self {
            Kind::Leaf => "a leaf".to_string(),
            Kind::None => "None".to_string(),
            Kind::Some => "Some(..)".to_string(),
            Kind::Tuple => format!("a tuple of {arity}"),
            Kind::List => format!("a list of {arity}"),
            Kind::Dict(keys) => format!("a map with keys {keys:?}"),
            Kind::Struct { name, .. } => format!("a struct `{name}`"),
            Kind::Static(v) => format!("the static value {v:?}"),
        }
    }
}

pub(crate) struct Node {
    pub(crate) kind: Kind,
    pub(crate) children: Vec<TreeDef>,
    num_leaves: usize,
    num_nodes: usize,
    hash: u64,
}

/// The structure of a pytree: its nodes, their static metadata, and where the leaves go
/// (JAX's `PyTreeDef`).
///
/// Cheap to clone (an `Arc`), `Send + Sync`, and `Eq + Hash` over the whole structure
/// including static metadata but not leaf values, so it can key a cache. Displays JAX-style,
/// with `*` for each leaf:
///
/// ```
/// use olympus::tree::tree_structure;
/// use olympus::numpy as np;
/// use std::collections::BTreeMap;
///
/// let x = np::array(&[1.0f32, 2.0])?;
/// let mut tree = BTreeMap::new();
/// tree.insert("a".to_string(), (x.clone(), None::<olympus::Array>));
/// tree.insert("b".to_string(), (x.clone(), Some(x.clone())));
/// let def = tree_structure(&tree);
/// assert_eq!(def.to_string(), "PyTreeDef({'a': (*, None), 'b': (*, Some(*))})");
/// assert_eq!((def.num_leaves(), def.num_nodes()), (3, 8));
/// # Ok::<(), olympus::Error>(())
/// ```
///
/// The forms: `*` a leaf, `None`, `Some(*)`, tuples `(*, *)` (`(*,)`, `()`), `Vec`s and
/// arrays `[*, *]`, maps `{'k': *}` (keys sorted), structs `Name { field: *, meta: "relu" }`
/// and `Name(*, *)`, and static values by their `Debug` form (`0.5`, `"relu"`).
#[derive(Clone)]
pub struct TreeDef(pub(crate) Arc<Node>);

impl TreeDef {
    pub(crate) fn new(kind: Kind, children: Vec<TreeDef>) -> TreeDef {
        let num_leaves = match kind {
            Kind::Leaf => 1,
            _ => children.iter().map(TreeDef::num_leaves).sum(),
        };
        let num_nodes = 1 + children.iter().map(TreeDef::num_nodes).sum::<usize>();
        let mut h = DefaultHasher::new();
        kind.hash_into(&mut h);
        children.len().hash(&mut h);
        for c in &children {
            c.0.hash.hash(&mut h);
        }
        TreeDef(Arc::new(Node {
            kind,
            children,
            num_leaves,
            num_nodes,
            hash: h.finish(),
        }))
    }

    /// The structure of a single leaf (`*`).
    pub fn leaf() -> TreeDef {
        static LEAF: OnceLock<TreeDef> = OnceLock::new();
        LEAF.get_or_init(|| TreeDef::new(Kind::Leaf, Vec::new()))
            .clone()
    }

    /// The structure of `None`: a node without children (not a leaf).
    pub fn none() -> TreeDef {
        static NONE: OnceLock<TreeDef> = OnceLock::new();
        NONE.get_or_init(|| TreeDef::new(Kind::None, Vec::new()))
            .clone()
    }

    /// `Some(child)`: a node with one child, which adds no entry to key paths.
    pub fn some(child: TreeDef) -> TreeDef {
        TreeDef::new(Kind::Some, vec![child])
    }

    /// A tuple of `children`.
    pub fn tuple(children: Vec<TreeDef>) -> TreeDef {
        TreeDef::new(Kind::Tuple, children)
    }

    /// A list (`Vec`, Rust array) of `children`.
    pub fn list(children: Vec<TreeDef>) -> TreeDef {
        TreeDef::new(Kind::List, children)
    }

    /// A map; `entries` must be sorted by key with no duplicates (the caller flattens the
    /// values in that order).
    pub(crate) fn dict(entries: Vec<(String, TreeDef)>) -> TreeDef {
        let (keys, children) = entries.into_iter().unzip();
        TreeDef::new(Kind::Dict(keys), children)
    }

    /// A node without children holding `value` as static metadata (how Rust scalars and
    /// `String`s flatten; see [`register_pytree!`](crate::register_pytree)`(static T)`).
    pub fn constant<V: StaticValue>(value: V) -> TreeDef {
        TreeDef::new(Kind::Static(Arc::new(value)), Vec::new())
    }

    /// Starts a struct node with named fields, displayed `name { field: .., .. }`; see
    /// [`NodeBuilder`].
    pub fn build_struct(name: impl Into<Cow<'static, str>>) -> NodeBuilder {
        NodeBuilder {
            name: name.into(),
            tuple_style: false,
            fields: Vec::new(),
            children: Vec::new(),
        }
    }

    /// Starts a tuple-struct node, displayed `name(.., ..)`; name its fields `"0"`, `"1"`,
    /// ... (their key-path entries are `.0`, `.1`). See [`NodeBuilder`].
    pub fn build_tuple_struct(name: impl Into<Cow<'static, str>>) -> NodeBuilder {
        NodeBuilder {
            name: name.into(),
            tuple_style: true,
            fields: Vec::new(),
            children: Vec::new(),
        }
    }

    /// Number of leaves.
    pub fn num_leaves(&self) -> usize {
        self.0.num_leaves
    }

    /// Number of nodes, leaves and `None`s and static values included (JAX's count).
    pub fn num_nodes(&self) -> usize {
        self.0.num_nodes
    }

    /// The structures of the node's children (empty for a leaf, `None` or a static value;
    /// a struct's static fields are not children).
    pub fn children(&self) -> &[TreeDef] {
        &self.0.children
    }

    /// Whether this is the structure of a single leaf.
    pub fn is_leaf(&self) -> bool {
        matches!(self.0.kind, Kind::Leaf)
    }

    /// What kind of node the root is.
    pub fn kind(&self) -> NodeKind<'_> {
        match &self.0.kind {
            Kind::Leaf => NodeKind::Leaf,
            Kind::None => NodeKind::None,
            Kind::Some => NodeKind::Some,
            Kind::Tuple => NodeKind::Tuple,
            Kind::List => NodeKind::List,
            Kind::Dict(keys) => NodeKind::Dict { keys },
            Kind::Struct { name, .. } => NodeKind::Struct { name },
            Kind::Static(v) => NodeKind::Static(&**v),
        }
    }

    /// The static field `name` of a struct node, if it has one.
    pub fn static_field(&self, name: &str) -> Option<&dyn StaticValue> {
        match &self.0.kind {
            Kind::Struct { fields, .. } => fields
                .iter()
                .find(|f| f.name == name)
                .and_then(|f| f.value.as_deref()),
            _ => None,
        }
    }

    /// The key-path entry of each child (`None` for `Some`'s child, which adds none).
    pub(crate) fn child_keys(&self) -> Vec<Option<KeyEntry>> {
        match &self.0.kind {
            Kind::Tuple | Kind::List => (0..self.0.children.len())
                .map(|i| Some(KeyEntry::Index(i)))
                .collect(),
            Kind::Dict(keys) => keys
                .iter()
                .map(|k| Some(KeyEntry::Key(k.clone())))
                .collect(),
            Kind::Struct { fields, .. } => fields
                .iter()
                .filter(|f| f.value.is_none())
                .map(|f| Some(KeyEntry::Field(f.name.clone())))
                .collect(),
            Kind::Some => vec![None],
            Kind::Leaf | Kind::None | Kind::Static(_) => Vec::new(),
        }
    }

    /// The key path of every leaf, in leaf order.
    ///
    /// ```
    /// use olympus::{numpy as np, tree::tree_structure};
    /// let x = np::array(&[1.0f32])?;
    /// let def = tree_structure(&vec![(x.clone(), x.clone())]);
    /// let paths: Vec<String> = def.key_paths().iter().map(|p| p.to_string()).collect();
    /// assert_eq!(paths, ["[0][0]", "[0][1]"]);
    /// # Ok::<(), olympus::Error>(())
    /// ```
    pub fn key_paths(&self) -> Vec<KeyPath> {
        fn walk(def: &TreeDef, path: &mut Vec<KeyEntry>, out: &mut Vec<KeyPath>) {
            if def.is_leaf() {
                out.push(KeyPath(path.clone()));
                return;
            }
            for (key, child) in def.child_keys().into_iter().zip(def.children()) {
                let pushed = key.is_some();
                if let Some(k) = key {
                    path.push(k);
                }
                walk(child, path, out);
                if pushed {
                    path.pop();
                }
            }
        }
        let mut out = Vec::with_capacity(self.num_leaves());
        walk(self, &mut Vec::new(), &mut out);
        out
    }

    /// Same root node (kind, keys, static metadata, arity), children aside.
    pub(crate) fn same_node(&self, other: &TreeDef) -> bool {
        self.0.children.len() == other.0.children.len() && self.0.kind.same(&other.0.kind)
    }

    /// The root node in words (`a tuple of 2`, `a struct `Layer``), for error messages.
    pub(crate) fn describe(&self) -> String {
        self.0.kind.describe(self.0.children.len())
    }

    /// Why `self` and `other` differ at their roots, for error messages.
    pub(crate) fn node_difference(&self, other: &TreeDef) -> String {
        let (a, b) = (&self.0.kind, &other.0.kind);
        match (a, b) {
            (Kind::Tuple, Kind::Tuple) | (Kind::List, Kind::List) => format!(
                "arity {} != {}",
                self.0.children.len(),
                other.0.children.len()
            ),
            (Kind::Dict(k1), Kind::Dict(k2)) => format!("map keys {k1:?} != {k2:?}"),
            (Kind::Struct { name: n1, .. }, Kind::Struct { name: n2, .. }) if n1 == n2 => {
                format!("struct `{n1}` fields or static metadata differ")
            }
            (Kind::Static(_), Kind::Static(_)) => "static values differ".to_string(),
            _ => "node kinds differ".to_string(),
        }
    }

    fn fmt_node(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let children = &self.0.children;
        let list = |f: &mut fmt::Formatter<'_>, open: &str, close: &str| -> fmt::Result {
            f.write_str(open)?;
            for (i, c) in children.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                c.fmt_node(f)?;
            }
            f.write_str(close)
        };
        match &self.0.kind {
            Kind::Leaf => f.write_str("*"),
            Kind::None => f.write_str("None"),
            Kind::Some => list(f, "Some(", ")"),
            Kind::Tuple if children.len() == 1 => list(f, "(", ",)"),
            Kind::Tuple => list(f, "(", ")"),
            Kind::List => list(f, "[", "]"),
            Kind::Dict(keys) => {
                f.write_str("{")?;
                for (i, (k, c)) in keys.iter().zip(children).enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write_quoted(f, k)?;
                    f.write_str(": ")?;
                    c.fmt_node(f)?;
                }
                f.write_str("}")
            }
            Kind::Struct {
                name,
                tuple_style,
                fields,
            } => {
                let mut next = children.iter();
                f.write_str(name)?;
                if fields.is_empty() {
                    return f.write_str(if *tuple_style { "()" } else { " {}" });
                }
                f.write_str(if *tuple_style { "(" } else { " { " })?;
                for (i, field) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    if !tuple_style {
                        write!(f, "{}: ", field.name)?;
                    }
                    match &field.value {
                        Some(v) => write!(f, "{v:?}")?,
                        None => match next.next() {
                            Some(c) => c.fmt_node(f)?,
                            None => f.write_str("?")?,
                        },
                    }
                }
                f.write_str(if *tuple_style { ")" } else { " }" })
            }
            Kind::Static(v) => write!(f, "{v:?}"),
        }
    }

    /// The node without the `PyTreeDef(..)` wrapper, for error messages.
    pub(crate) fn inner_string(&self) -> String {
        struct Inner<'a>(&'a TreeDef);
        impl fmt::Display for Inner<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt_node(f)
            }
        }
        Inner(self).to_string()
    }
}

impl fmt::Display for TreeDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PyTreeDef(")?;
        self.fmt_node(f)?;
        f.write_str(")")
    }
}

impl fmt::Debug for TreeDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl PartialEq for TreeDef {
    fn eq(&self, other: &TreeDef) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
            || (self.0.hash == other.0.hash
                && self.same_node(other)
                && self.0.children == other.0.children)
    }
}

impl Eq for TreeDef {}

impl Hash for TreeDef {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash.hash(state);
    }
}

/// What kind of node a [`TreeDef`]'s root is ([`TreeDef::kind`]).
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum NodeKind<'a> {
    /// A leaf (an [`Array`](crate::Array)).
    Leaf,
    /// `Option::None`: no children.
    None,
    /// `Option::Some`: one child.
    Some,
    /// A tuple (`()` included).
    Tuple,
    /// A `Vec` or Rust array.
    List,
    /// A `BTreeMap<String, _>` or `HashMap<String, _>`, children in sorted key order.
    Dict {
        /// The keys, sorted.
        keys: &'a [String],
    },
    /// A struct registered with [`register_pytree!`](crate::register_pytree) or built with
    /// [`TreeDef::build_struct`].
    Struct {
        /// Its name.
        name: &'a str,
    },
    /// A static value without children (a Rust scalar, a `String`).
    Static(&'a dyn StaticValue),
}

/// Builds a struct node in a manual [`PyTree::flatten_into`](super::PyTree::flatten_into):
/// add the fields in order (children with [`field`](NodeBuilder::field), metadata with
/// [`static_field`](NodeBuilder::static_field)), then [`build`](NodeBuilder::build). Read
/// it back with [`StructReader`](super::StructReader) in the same order.
#[must_use]
pub struct NodeBuilder {
    name: Cow<'static, str>,
    tuple_style: bool,
    fields: Vec<FieldDef>,
    children: Vec<TreeDef>,
}

impl NodeBuilder {
    /// Adds a child field: its name and its flattened structure.
    pub fn field(mut self, name: impl Into<Cow<'static, str>>, child: TreeDef) -> NodeBuilder {
        self.fields.push(FieldDef {
            name: name.into(),
            value: None,
        });
        self.children.push(child);
        self
    }

    /// Adds a static field: metadata carried in the `TreeDef`, not a leaf.
    pub fn static_field<V: StaticValue>(
        mut self,
        name: impl Into<Cow<'static, str>>,
        value: V,
    ) -> NodeBuilder {
        self.fields.push(FieldDef {
            name: name.into(),
            value: Some(Arc::new(value)),
        });
        self
    }

    /// The finished node.
    pub fn build(self) -> TreeDef {
        TreeDef::new(
            Kind::Struct {
                name: self.name,
                tuple_style: self.tuple_style,
                fields: self.fields,
            },
            self.children,
        )
    }
}
