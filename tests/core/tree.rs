//! Pytrees: round trips for every node kind, leaf order, `None`, `TreeDef` equality and
//! hashing, prefix maps, key paths, errors, and user structs with static fields.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::{Hash, Hasher};

use crate::common::assert_error;

use half::f16;
use olympus::numpy as np;
use olympus::tree::{
    self, tree_all, tree_flatten, tree_flatten_with_path, tree_leaves, tree_map, tree_map2,
    tree_map_n, tree_map_with_path, tree_reduce, tree_structure, tree_unflatten, KeyEntry, Leaves,
    NodeKind, PyTree, StaticFloat, StructReader, TreeDef,
};
use olympus::{Array, Error, Result};

/// A distinct one-element float32 array per value, so leaf order is visible.
fn a(v: f32) -> Array {
    Array::from_slice(&[v], &[1]).unwrap()
}

fn val(x: &Array) -> f32 {
    let v = x.to_vec::<f32>().unwrap();
    assert_eq!(v.len(), 1);
    v[0]
}

fn vals(leaves: &[Array]) -> Vec<f32> {
    leaves.iter().map(val).collect()
}

fn hash_of<T: Hash>(t: &T) -> u64 {
    let mut h = DefaultHasher::new();
    t.hash(&mut h);
    h.finish()
}

/// Flattens `t`, checks its leaf values and display, unflattens, and checks the rebuilt
/// value flattens to the same leaves (the very same arrays) and structure.
fn round_trip<T: PyTree>(t: &T, want_leaves: &[f32], want_def: &str) -> T {
    let (leaves, def) = tree_flatten(t);
    assert_eq!(vals(&leaves), want_leaves, "leaves of {def}");
    assert_eq!(def.to_string(), want_def);
    assert_eq!(def.num_leaves(), want_leaves.len());
    let back: T = tree_unflatten(&def, leaves.clone()).unwrap();
    let (leaves2, def2) = tree_flatten(&back);
    assert_eq!(def2, def);
    assert_eq!(vals(&leaves2), want_leaves);
    back
}

// ---------------------------------------------------------------------------------------
// User types
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
struct Layer {
    w: Array,
    b: Array,
    activation: String,
}
olympus::register_pytree!(Layer { w, b, #[static] activation });

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Act {
    Relu,
    Gelu,
}
olympus::register_pytree!(static Act);

#[derive(Debug)]
struct Pair(Array, Vec<Array>, u32);
olympus::register_pytree!(Pair(0, 1, #[static] 2));

#[derive(Debug)]
struct Model {
    params: BTreeMap<String, Vec<Array>>,
    act: Act,
    scale: f32,
    rate: StaticFloat<f64>,
    extra: Option<Box<Pair>>,
}
olympus::register_pytree!(Model { params, act, scale, #[static] rate, extra });

/// A generic struct, implemented by hand.
#[derive(Debug)]
struct Tagged<T> {
    inner: T,
    tag: &'static str,
}

impl<T: PyTree> PyTree for Tagged<T> {
    fn flatten_into(&self, leaves: &mut Vec<Array>) -> TreeDef {
        TreeDef::build_struct("Tagged")
            .field("inner", self.inner.flatten_into(leaves))
            .static_field("tag", self.tag)
            .build()
    }

    fn unflatten_from(def: &TreeDef, leaves: &mut Leaves<'_>) -> Result<Self> {
        let mut r = StructReader::open(def, leaves, "Tagged")?;
        let value = Tagged {
            inner: r.field("inner")?,
            tag: r.static_field("tag")?,
        };
        r.finish()?;
        Ok(value)
    }
}

fn layer(w: f32, b: f32, act: &str) -> Layer {
    Layer {
        w: a(w),
        b: a(b),
        activation: act.to_string(),
    }
}

fn model(base: f32, scale: f32) -> Model {
    let mut params = BTreeMap::new();
    params.insert("w".to_string(), vec![a(base), a(base + 1.0)]);
    params.insert("b".to_string(), vec![a(base + 2.0)]);
    Model {
        params,
        act: Act::Relu,
        scale,
        rate: StaticFloat(0.5),
        extra: Some(Box::new(Pair(a(base + 3.0), vec![a(base + 4.0)], 9))),
    }
}

// ---------------------------------------------------------------------------------------
// Round trips and leaf order
// ---------------------------------------------------------------------------------------

#[test]
fn round_trip_leaf_unit_and_tuples() {
    let x = round_trip(&a(1.0), &[1.0], "PyTreeDef(*)");
    assert_eq!(val(&x), 1.0);
    round_trip(&(), &[], "PyTreeDef(())");
    let (t,) = round_trip(&(a(1.0),), &[1.0], "PyTreeDef((*,))");
    assert_eq!(val(&t), 1.0);
    let t = round_trip(&(a(1.0), a(2.0)), &[1.0, 2.0], "PyTreeDef((*, *))");
    assert_eq!((val(&t.0), val(&t.1)), (1.0, 2.0));
    let t12 = (
        a(0.0),
        a(1.0),
        a(2.0),
        a(3.0),
        a(4.0),
        a(5.0),
        a(6.0),
        a(7.0),
        a(8.0),
        a(9.0),
        a(10.0),
        a(11.0),
    );
    let want: Vec<f32> = (0..12).map(|i| i as f32).collect();
    let back = round_trip(
        &t12,
        &want,
        "PyTreeDef((*, *, *, *, *, *, *, *, *, *, *, *))",
    );
    assert_eq!(val(&back.11), 11.0);
}

#[test]
fn round_trip_vec_array_option_box() {
    let v = round_trip(
        &vec![a(1.0), a(2.0), a(3.0)],
        &[1.0, 2.0, 3.0],
        "PyTreeDef([*, *, *])",
    );
    assert_eq!(vals(&v), [1.0, 2.0, 3.0]);
    let empty: Vec<Array> = round_trip(&Vec::<Array>::new(), &[], "PyTreeDef([])");
    assert!(empty.is_empty());
    let arr = round_trip(&[a(4.0), a(5.0)], &[4.0, 5.0], "PyTreeDef([*, *])");
    assert_eq!(vals(&arr), [4.0, 5.0]);
    let none = round_trip(&None::<Array>, &[], "PyTreeDef(None)");
    assert!(none.is_none());
    let some = round_trip(&Some(a(6.0)), &[6.0], "PyTreeDef(Some(*))");
    assert_eq!(val(&some.unwrap()), 6.0);
    let some_none = round_trip(&Some(None::<Array>), &[], "PyTreeDef(Some(None))");
    assert!(matches!(some_none, Some(None)));
    let boxed = round_trip(
        &Box::new((a(7.0), a(8.0))),
        &[7.0, 8.0],
        "PyTreeDef((*, *))",
    );
    assert_eq!(val(&boxed.1), 8.0);
}

#[test]
fn round_trip_maps_in_sorted_key_order() {
    let mut b = BTreeMap::new();
    b.insert("zeta".to_string(), a(1.0));
    b.insert("alpha".to_string(), a(2.0));
    b.insert("mid".to_string(), a(3.0));
    let back = round_trip(
        &b,
        &[2.0, 3.0, 1.0],
        "PyTreeDef({'alpha': *, 'mid': *, 'zeta': *})",
    );
    assert_eq!(val(&back["zeta"]), 1.0);

    let mut h: HashMap<String, (Array, Array)> = HashMap::new();
    for (i, k) in ["d", "a", "c", "b", "e"].iter().enumerate() {
        h.insert(k.to_string(), (a(i as f32), a(10.0 + i as f32)));
    }
    let back = round_trip(
        &h,
        &[1.0, 11.0, 3.0, 13.0, 2.0, 12.0, 0.0, 10.0, 4.0, 14.0],
        "PyTreeDef({'a': (*, *), 'b': (*, *), 'c': (*, *), 'd': (*, *), 'e': (*, *)})",
    );
    assert_eq!(val(&back["d"].1), 10.0);
    // The same keys in a BTreeMap and a HashMap have the same structure.
    let b2: BTreeMap<String, (Array, Array)> = h.clone().into_iter().collect();
    assert_eq!(tree_structure(&b2), tree_structure(&h));
    let empty = round_trip(&BTreeMap::<String, Array>::new(), &[], "PyTreeDef({})");
    assert!(empty.is_empty());
}

#[test]
fn round_trip_scalars_are_static() {
    let t = (
        a(1.0),
        2.5f32,
        3i32,
        true,
        String::from("s"),
        0.25f64,
        f16::from_f32(1.5),
        7u8,
    );
    let back = round_trip(
        &t,
        &[1.0],
        "PyTreeDef((*, 2.5, 3, true, \"s\", 0.25, 1.5, 7))",
    );
    assert_eq!(back.1, 2.5);
    assert_eq!(back.2, 3);
    assert!(back.3);
    assert_eq!(back.4, "s");
    assert_eq!(back.5, 0.25);
    assert_eq!(back.6, f16::from_f32(1.5));
    assert_eq!(back.7, 7);
    let def = tree_structure(&t);
    assert_eq!((def.num_leaves(), def.num_nodes()), (1, 9));
    assert!(matches!(def.children()[1].kind(), NodeKind::Static(_)));
    // A tree of scalars has no leaves; tree_map leaves it as it is.
    let s: (f32, Vec<i32>) = tree_map(|x| np::add(x, 1.0), &(1.5f32, vec![1, 2])).unwrap();
    assert_eq!(s, (1.5, vec![1, 2]));
}

#[test]
fn round_trip_deep_nesting() {
    let mut inner = BTreeMap::new();
    inner.insert(
        "k".to_string(),
        Some(vec![(a(3.0), None::<Array>), (a(4.0), Some(a(5.0)))]),
    );
    inner.insert("j".to_string(), None);
    let t = (a(1.0), vec![Box::new(a(2.0))], inner, [(), ()], a(6.0));
    let back = round_trip(
        &t,
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        "PyTreeDef((*, [*], {'j': None, 'k': Some([(*, None), (*, Some(*))])}, [(), ()], *))",
    );
    let k = back.2["k"].as_ref().unwrap();
    assert_eq!(val(k[1].1.as_ref().unwrap()), 5.0);
    assert!(back.2["j"].is_none());
}

#[test]
fn round_trip_user_structs() {
    let l = round_trip(
        &layer(1.0, 2.0, "relu"),
        &[1.0, 2.0],
        "PyTreeDef(Layer { w: *, b: *, activation: \"relu\" })",
    );
    assert_eq!(l.activation, "relu");
    assert_eq!((val(&l.w), val(&l.b)), (1.0, 2.0));

    let m = round_trip(
        &model(10.0, 3.0),
        &[12.0, 10.0, 11.0, 13.0, 14.0],
        "PyTreeDef(Model { params: {'b': [*], 'w': [*, *]}, act: Relu, scale: 3.0, \
         rate: 0.5, extra: Some(Pair(*, [*], 9)) })",
    );
    assert_eq!(m.act, Act::Relu);
    assert_eq!(m.scale, 3.0);
    assert_eq!(m.rate.0, 0.5);
    let pair = m.extra.unwrap();
    assert_eq!(pair.2, 9);
    assert_eq!(val(&pair.1[0]), 14.0);

    let t = round_trip(
        &Tagged {
            inner: (a(1.0), vec![a(2.0)]),
            tag: "hi",
        },
        &[1.0, 2.0],
        "PyTreeDef(Tagged { inner: (*, [*]), tag: \"hi\" })",
    );
    assert_eq!(t.tag, "hi");
}

#[test]
fn leaf_order_is_depth_first_in_listing_order() {
    let t = (
        vec![layer(1.0, 2.0, "a"), layer(3.0, 4.0, "b")],
        Some((a(5.0), None::<Array>, a(6.0))),
        [a(7.0)],
    );
    assert_eq!(vals(&tree_leaves(&t)), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
    // Unflatten puts each leaf back where it came from.
    let leaves: Vec<Array> = (0..7).map(|i| a(100.0 + i as f32)).collect();
    let back: (
        Vec<Layer>,
        Option<(Array, Option<Array>, Array)>,
        [Array; 1],
    ) = tree_unflatten(&tree_structure(&t), leaves).unwrap();
    assert_eq!(val(&back.0[1].w), 102.0);
    assert_eq!(back.0[1].activation, "b");
    assert_eq!(val(&back.1.as_ref().unwrap().2), 105.0);
    assert_eq!(val(&back.2[0]), 106.0);
}

#[test]
fn none_is_an_empty_node_not_a_leaf() {
    let t = (None::<Array>, a(1.0), vec![None::<Array>, Some(a(2.0))]);
    let (leaves, def) = tree_flatten(&t);
    assert_eq!(vals(&leaves), [1.0, 2.0]);
    assert_eq!(def.to_string(), "PyTreeDef((None, *, [None, Some(*)]))");
    assert_eq!(def.num_leaves(), 2);
    // tuple, None, leaf, list, None, Some, leaf
    assert_eq!(def.num_nodes(), 7);
    assert!(matches!(def.children()[0].kind(), NodeKind::None));
    assert_eq!(def.children()[0].num_leaves(), 0);
    // tree_map never calls f on None.
    let mut calls = 0;
    let out = tree_map(
        |x| {
            calls += 1;
            np::multiply(x, 2.0)
        },
        &t,
    )
    .unwrap();
    assert_eq!(calls, 2);
    assert!(out.0.is_none() && out.2[0].is_none());
    assert_eq!(val(out.2[1].as_ref().unwrap()), 4.0);
    // None and Some differ in structure.
    assert_ne!(
        tree_structure(&None::<Array>),
        tree_structure(&Some(a(1.0)))
    );
    assert_ne!(tree_structure(&None::<Array>), tree_structure(&()));
}

// ---------------------------------------------------------------------------------------
// TreeDef equality, hashing, display, accessors
// ---------------------------------------------------------------------------------------

#[test]
fn treedef_eq_and_hash() {
    // Same structure, other values: equal, same hash.
    let d1 = tree_structure(&model(1.0, 3.0));
    let d2 = tree_structure(&model(50.0, 3.0));
    assert_eq!(d1, d2);
    assert_eq!(hash_of(&d1), hash_of(&d2));
    let set: HashSet<TreeDef> = [d1.clone(), d2.clone()].into_iter().collect();
    assert_eq!(set.len(), 1);

    // Other static metadata: unequal.
    let d3 = tree_structure(&model(1.0, 4.0)); // scale is static
    assert_ne!(d1, d3);
    let mut m = model(1.0, 3.0);
    m.act = Act::Gelu;
    assert_ne!(d1, tree_structure(&m));
    let mut m = model(1.0, 3.0);
    m.rate = StaticFloat(0.25);
    assert_ne!(d1, tree_structure(&m));
    assert_ne!(
        tree_structure(&layer(1.0, 2.0, "relu")),
        tree_structure(&layer(1.0, 2.0, "tanh"))
    );
    assert_eq!(
        tree_structure(&layer(1.0, 2.0, "relu")),
        tree_structure(&layer(5.0, 6.0, "relu"))
    );
    assert_ne!(tree_structure(&0.0f32), tree_structure(&-0.0f32));
    assert_eq!(tree_structure(&f32::NAN), tree_structure(&f32::NAN));
    assert_ne!(tree_structure(&1i32), tree_structure(&1u32));

    // Kinds: tuple and list differ; Vec and array agree; Box is transparent.
    let x = a(1.0);
    assert_ne!(
        tree_structure(&(x.clone(), x.clone())),
        tree_structure(&vec![x.clone(), x.clone()])
    );
    assert_eq!(
        tree_structure(&[x.clone(), x.clone()]),
        tree_structure(&vec![x.clone(), x.clone()])
    );
    assert_eq!(tree_structure(&Box::new(x.clone())), TreeDef::leaf());
    assert_ne!(
        tree_structure(&vec![x.clone()]),
        tree_structure(&vec![x.clone(), x.clone()])
    );

    // Many structures, all distinct, all hash-distinct enough for a set.
    let defs = [
        TreeDef::leaf(),
        TreeDef::none(),
        tree_structure(&()),
        tree_structure(&Vec::<Array>::new()),
        tree_structure(&BTreeMap::<String, Array>::new()),
        tree_structure(&(x.clone(),)),
        tree_structure(&vec![x.clone()]),
        tree_structure(&Some(x.clone())),
        d1.clone(),
        d3.clone(),
    ];
    let set: HashSet<TreeDef> = defs.iter().cloned().collect();
    assert_eq!(set.len(), defs.len());

    fn assert_send_sync_clone<T: Send + Sync + Clone + 'static>() {}
    assert_send_sync_clone::<TreeDef>();
}

#[test]
fn treedef_accessors() {
    let t = (a(1.0), vec![a(2.0), a(3.0)], layer(4.0, 5.0, "relu"));
    let def = tree_structure(&t);
    assert_eq!(def.num_leaves(), 5);
    // tuple, leaf, list, 2 leaves, struct, 2 leaves
    assert_eq!(def.num_nodes(), 8);
    let c = def.children();
    assert_eq!(c.len(), 3);
    assert!(c[0].is_leaf());
    assert_eq!(c[1].to_string(), "PyTreeDef([*, *])");
    assert_eq!(c[2].children().len(), 2);
    assert!(matches!(c[2].kind(), NodeKind::Struct { name: "Layer" }));
    let act = c[2].static_field("activation").unwrap();
    assert_eq!(act.as_any().downcast_ref::<String>().unwrap(), "relu");
    assert_eq!(format!("{def:?}"), def.to_string());
    // The TreeDef unflattens a value of the same shape from new leaves.
    let back: (Array, Vec<Array>, Layer) =
        tree_unflatten(&def, (0..5).map(|i| a(i as f32))).unwrap();
    assert_eq!(val(&back.2.b), 4.0);
}

// ---------------------------------------------------------------------------------------
// Key paths
// ---------------------------------------------------------------------------------------

#[test]
fn key_path_strings() {
    struct Outer {
        params: BTreeMap<String, Vec<Array>>,
        pair: Pair,
        opt: Option<(Array,)>,
    }
    olympus::register_pytree!(Outer { params, pair, opt });
    let mut params = BTreeMap::new();
    params.insert("w".to_string(), vec![a(1.0), a(2.0)]);
    params.insert("it's".to_string(), vec![a(0.0)]);
    let o = Outer {
        params,
        pair: Pair(a(3.0), vec![a(4.0)], 1),
        opt: Some((a(5.0),)),
    };
    let (leaves, def) = tree_flatten_with_path(&o);
    let paths: Vec<String> = leaves.iter().map(|(p, _)| p.to_string()).collect();
    assert_eq!(
        paths,
        [
            ".params['it\\'s'][0]",
            ".params['w'][0]",
            ".params['w'][1]",
            ".pair.0",
            ".pair.1[0]",
            ".opt[0]",
        ]
    );
    assert_eq!(
        vals(&leaves.iter().map(|(_, x)| x.clone()).collect::<Vec<_>>()),
        [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    );
    assert_eq!(
        def.key_paths()
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>(),
        paths
    );
    let p = &leaves[2].0;
    assert_eq!(
        p.entries(),
        [
            KeyEntry::Field("params".into()),
            KeyEntry::Key("w".into()),
            KeyEntry::Index(1)
        ]
    );
    assert_eq!(format!("{p:?}"), "KeyPath(\".params['w'][1]\")");
    // The root's path is empty.
    let (root, _) = tree_flatten_with_path(&a(1.0));
    assert_eq!(root[0].0.to_string(), "");
    assert!(root[0].0.is_empty());
}

#[test]
fn map_with_path_selects_by_key() {
    let params = vec![layer(1.0, 2.0, "relu"), layer(3.0, 4.0, "relu")];
    let mut seen = Vec::new();
    // Weight decay on weights only.
    let out: Vec<Layer> = tree_map_with_path(
        |path, x| {
            seen.push(path.to_string());
            if path.last() == Some(&KeyEntry::Field("w".into())) {
                np::multiply(x, 0.5)
            } else {
                Ok(x.clone())
            }
        },
        &params,
    )
    .unwrap();
    assert_eq!(seen, ["[0].w", "[0].b", "[1].w", "[1].b"]);
    assert_eq!(vals(&tree_leaves(&out)), [0.5, 2.0, 1.5, 4.0]);
}

// ---------------------------------------------------------------------------------------
// tree_map over several trees, prefixes, errors
// ---------------------------------------------------------------------------------------

#[test]
fn map_two_trees_sgd() {
    let params = vec![layer(1.0, 2.0, "relu"), layer(3.0, 4.0, "tanh")];
    let grads = vec![layer(10.0, 20.0, "relu"), layer(30.0, 40.0, "tanh")];
    let new: Vec<Layer> = tree_map2(
        |p, g| np::subtract(p, np::multiply(g, 0.1)?),
        &params,
        &grads,
    )
    .unwrap();
    assert_eq!(vals(&tree_leaves(&new)), [0.0, 0.0, 0.0, 0.0]);
    assert_eq!(new[1].activation, "tanh");
    // The second tree may be of another type with the same structure.
    let other: Vec<(Array, Array)> = vec![(a(1.0), a(1.0)); 2];
    let r = tree_map2(|x, y| np::add(x, y), &vec![(a(1.0), a(2.0)); 2], &other).unwrap();
    assert_eq!(vals(&tree_leaves(&r)), [2.0, 3.0, 2.0, 3.0]);
}

#[test]
fn map_with_prefix_trees() {
    // Each leaf of the first tree meets a whole subtree of the others.
    let xs = vec![a(1.0), a(2.0)];
    let pairs = vec![(a(10.0), a(20.0)), (a(30.0), a(40.0))];
    let pairs2 = vec![(a(100.0), a(200.0)), (a(300.0), a(400.0))];
    let mut got = Vec::new();
    let out: Vec<Array> = tree_map_n(
        |x, rest: &[(Array, Array)]| {
            got.push((
                val(x),
                vals(&[rest[0].0.clone(), rest[0].1.clone(), rest[1].1.clone()]),
            ));
            np::add(x, np::add(&rest[0].0, &rest[1].1)?)
        },
        &xs,
        &[&pairs, &pairs2],
    )
    .unwrap();
    assert_eq!(vals(&out), [211.0, 432.0]);
    assert_eq!(got[1], (2.0, vec![30.0, 40.0, 400.0]));

    // A leaf may meet None (a subtree without leaves) when f takes an Option.
    let opts = (Some(a(5.0)), None::<Array>);
    let r: (Array, Array) = tree_map_n(
        |x, rest: &[Option<Array>]| match &rest[0] {
            Some(y) => np::add(x, y),
            None => Ok(x.clone()),
        },
        &(a(1.0), a(2.0)),
        &[&opts],
    )
    .unwrap();
    assert_eq!((val(&r.0), val(&r.1)), (6.0, 2.0));

    // Where the first tree is not a leaf, the nodes must agree; f receives a subtree of a
    // dict value where the first tree has a leaf.
    let mut first = BTreeMap::new();
    first.insert("a".to_string(), a(1.0));
    first.insert("b".to_string(), a(2.0));
    let mut second = BTreeMap::new();
    second.insert("a".to_string(), vec![a(1.0), a(1.0), a(1.0)]);
    second.insert("b".to_string(), vec![a(5.0)]);
    let r: BTreeMap<String, Array> = tree_map_n(
        |x, rest: &[Vec<Array>]| Ok(a(val(x) * 100.0 + rest[0].len() as f32)),
        &first,
        &[&second],
    )
    .unwrap();
    assert_eq!((val(&r["a"]), val(&r["b"])), (103.0, 201.0));

    // Leaf-for-leaf works through tree_map_n with A = Array.
    let r: Vec<Array> = tree_map_n(|x, rest: &[Array]| np::add(x, &rest[0]), &xs, &[&xs]).unwrap();
    assert_eq!(vals(&r), [2.0, 4.0]);
    // With no other trees it is tree_map.
    let r: Vec<Array> =
        tree_map_n(|x, _: &[Array]| np::negative(x), &xs, &[] as &[&Vec<Array>]).unwrap();
    assert_eq!(vals(&r), [-1.0, -2.0]);
}

fn msg(e: Error) -> String {
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e:?}");
    e.to_string()
}

#[test]
fn mismatched_structures_name_the_key_path() {
    let x = a(1.0);
    // Arity.
    let e = tree_map2(
        |p, q| np::add(p, q),
        &vec![layer(1.0, 2.0, "r"), layer(1.0, 2.0, "r")],
        &vec![layer(1.0, 2.0, "r")],
    )
    .unwrap_err();
    let m = msg(e);
    assert!(m.starts_with("tree_map2: tree 2 (of 2)"), "{m}");
    assert!(
        m.contains("at the root") && m.contains("arity 2 != 1"),
        "{m}"
    );

    // A subtree where the first tree has a leaf: tree_map2 wants leaves.
    let e = tree_map2(
        |p, q| np::add(p, q),
        &(x.clone(), vec![x.clone()]),
        &(x.clone(), vec![(x.clone(), x.clone())]),
    )
    .unwrap_err();
    let m = msg(e);
    assert!(
        m.contains("expected a leaf") && m.contains("at key path [1][0]"),
        "{m}"
    );
    assert!(m.contains("`(*, *)`"), "{m}");

    // Map keys.
    let mut d1 = BTreeMap::new();
    d1.insert("a".to_string(), x.clone());
    d1.insert("b".to_string(), x.clone());
    let mut d2 = d1.clone();
    d2.remove("b");
    d2.insert("c".to_string(), x.clone());
    let m = msg(tree_map2(|p, q| np::add(p, q), &(vec![d1],), &(vec![d2],)).unwrap_err());
    assert!(m.contains("at key path [0][0]"), "{m}");
    assert!(
        m.contains("map keys [\"a\", \"b\"] != [\"a\", \"c\"]"),
        "{m}"
    );

    // Static metadata.
    let m = msg(tree_map2(
        |p, q| np::add(p, q),
        &vec![layer(1.0, 2.0, "relu")],
        &vec![layer(1.0, 2.0, "gelu")],
    )
    .unwrap_err());
    assert!(
        m.contains("at key path [0]") && m.contains("static metadata"),
        "{m}"
    );
    let m = msg(tree_map_n(
        |p, _: &[Array]| Ok(p.clone()),
        &model(1.0, 2.0),
        &[&model(1.0, 3.0)],
    )
    .unwrap_err());
    assert!(
        m.contains("at key path .scale") && m.contains("static values differ"),
        "{m}"
    );

    // None only matches None; a leaf is not None.
    let m = msg(tree_map2(
        |p, q| np::add(p, q),
        &(None::<Array>, x.clone()),
        &(x.clone(), x.clone()),
    )
    .unwrap_err());
    assert!(
        m.contains("at key path [0]") && m.contains("expected None"),
        "{m}"
    );
    let m = msg(tree_map2(
        |p, q| np::add(p, q),
        &(x.clone(), x.clone()),
        &(x.clone(), None::<Array>),
    )
    .unwrap_err());
    assert!(
        m.contains("at key path [1]") && m.contains("found None"),
        "{m}"
    );

    // Tuple vs list, and the third tree is the one named.
    let m = msg(tree_map_n(
        |p, _: &[Array]| Ok(p.clone()),
        &vec![x.clone()],
        &[&vec![x.clone()], &vec![x.clone(), x.clone()]],
    )
    .unwrap_err());
    assert!(m.contains("tree 3 (of 3)"), "{m}");
}

#[test]
fn unflatten_errors() {
    let x = a(1.0);
    let def = tree_structure(&(x.clone(), vec![x.clone(), x.clone()]));
    // Wrong number of leaves.
    for n in [0, 2, 4] {
        let e = tree_unflatten::<(Array, Vec<Array>)>(&def, vec![x.clone(); n]).unwrap_err();
        let m = msg(e);
        assert!(
            m.contains("tree_unflatten")
                && m.contains(&format!("has 3 leaves, but {n} were given")),
            "{m}"
        );
    }
    // Another type: the error names where it differs.
    let m = msg(tree_unflatten::<(Array, (Array, Array))>(&def, vec![x.clone(); 3]).unwrap_err());
    assert!(
        m.contains("expected a tuple of 2") && m.contains("at key path [1]"),
        "{m}"
    );
    let m = msg(tree_unflatten::<(Array, [Array; 3])>(&def, vec![x.clone(); 3]).unwrap_err());
    assert!(
        m.contains("expected a list of 3") && m.contains("at key path [1]"),
        "{m}"
    );
    let m =
        msg(tree_unflatten::<(Array, Vec<Option<Array>>)>(&def, vec![x.clone(); 3]).unwrap_err());
    assert!(
        m.contains("expected None or Some") && m.contains("at key path [1][0]"),
        "{m}"
    );
    let m = msg(tree_unflatten::<(Array, Vec<f32>)>(
        &tree_structure(&(x.clone(), vec![1i32])),
        vec![x.clone()],
    )
    .unwrap_err());
    assert!(
        m.contains("expected a static `f32`") || m.contains("f32"),
        "{m}"
    );
    assert!(m.contains("at key path [1][0]"), "{m}");

    // A struct from another struct's structure.
    let ldef = tree_structure(&layer(1.0, 2.0, "relu"));
    let m = msg(tree_unflatten::<Tagged<Array>>(&ldef, vec![x.clone(); 2]).unwrap_err());
    assert!(m.contains("expected a struct `Tagged`"), "{m}");
    // Same name, fields in another order.
    let other = TreeDef::build_struct("Layer")
        .field("b", TreeDef::leaf())
        .field("w", TreeDef::leaf())
        .static_field("activation", "relu".to_string())
        .build();
    let m = msg(tree_unflatten::<Layer>(&other, vec![x.clone(); 2]).unwrap_err());
    assert!(
        m.contains("expected child field `w` next, found child field `b`"),
        "{m}"
    );
    // Same fields, static of another type.
    let other = TreeDef::build_struct("Layer")
        .field("w", TreeDef::leaf())
        .field("b", TreeDef::leaf())
        .static_field("activation", 3i32)
        .build();
    let m = msg(tree_unflatten::<Layer>(&other, vec![x.clone(); 2]).unwrap_err());
    assert!(
        m.contains("static field `activation` of `Layer` holds 3"),
        "{m}"
    );
    // An extra field.
    let other = TreeDef::build_struct("Layer")
        .field("w", TreeDef::leaf())
        .field("b", TreeDef::leaf())
        .static_field("activation", "relu".to_string())
        .static_field("more", 1u8)
        .build();
    let m = msg(tree_unflatten::<Layer>(&other, vec![x.clone(); 2]).unwrap_err());
    assert!(m.contains("field `more` the type does not read"), "{m}");
    // A deep mismatch inside a user struct inside a map.
    let mut good = BTreeMap::new();
    good.insert(
        "enc".to_string(),
        Tagged {
            inner: vec![x.clone()],
            tag: "t",
        },
    );
    let gdef = tree_structure(&good);
    let m = msg(
        tree_unflatten::<BTreeMap<String, Tagged<Vec<(Array,)>>>>(&gdef, vec![x.clone()])
            .unwrap_err(),
    );
    assert!(m.contains("at key path ['enc'].inner[0]"), "{m}");
}

// ---------------------------------------------------------------------------------------
// Reductions
// ---------------------------------------------------------------------------------------

#[test]
fn reduce_and_all() {
    let t = (vec![a(1.0), a(2.0)], None::<Array>, layer(3.0, 4.0, "x"));
    let total = tree_reduce(|acc, x| Ok(acc + val(x)), &t, 0.0).unwrap();
    assert_eq!(total, 10.0);
    // Order is leaf order.
    let order = tree_reduce(
        |mut v: Vec<f32>, x| {
            v.push(val(x));
            Ok(v)
        },
        &t,
        Vec::new(),
    )
    .unwrap();
    assert_eq!(order, [1.0, 2.0, 3.0, 4.0]);
    let s = tree_reduce(
        |acc, x| np::add(acc, x),
        &t,
        np::zeros(&[1], olympus::DType::Float32).unwrap(),
    )
    .unwrap();
    assert_eq!(val(&s), 10.0);
    // Errors from f propagate.
    assert_error(
        tree_reduce(
            |_: f32, _| {
                Err(Error::InvalidArgument {
                    func: "f".into(),
                    reason: "no".into(),
                })
            },
            &t,
            0.0,
        ),
        "f",
        "InvalidArgument",
    );

    assert!(tree_all(&t).unwrap());
    assert!(tree_all(&()).unwrap());
    assert!(!tree_all(&(a(1.0), vec![a(0.0)])).unwrap());
    assert!(tree_all(&(np::array(true).unwrap(), a(f32::NAN))).unwrap());
    assert!(!tree_all(&(np::array(false).unwrap(),)).unwrap());
    let m = msg(tree_all(&(a(1.0), vec![np::array([1.0f32, 1.0]).unwrap()])).unwrap_err());
    assert!(
        m.contains("key path [1][0]") && m.contains("ambiguous"),
        "{m}"
    );
}

#[test]
fn module_functions_agree() {
    let t = (a(1.0), vec![a(2.0)]);
    let (leaves, def) = tree::tree_flatten(&t);
    assert_eq!(vals(&tree::tree_leaves(&t)), vals(&leaves));
    assert_eq!(tree::tree_structure(&t), def);
    let with_path = tree::tree_leaves_with_path(&t);
    assert_eq!(with_path[1].0.to_string(), "[1][0]");
    assert_eq!(val(&with_path[1].1), 2.0);
    let parts: Vec<(Array, Vec<Array>)> = TreeDef::leaf().flatten_up_to(&t).unwrap();
    assert_eq!(val(&parts[0].1[0]), 2.0);
}
