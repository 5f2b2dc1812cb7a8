//! `register_pytree!`: `PyTree` for user structs without a proc-macro.

/// Implements [`PyTree`](crate::tree::PyTree) for a struct, listing its fields.
///
/// - `register_pytree!(Name { a, b, #[static] c })`: a struct with named fields.
/// - `register_pytree!(Name(0, 1, #[static] 2))`: a tuple struct, fields by index.
/// - `register_pytree!(static Name)`: the whole type is static metadata (a node without
///   children, like a Rust scalar); it must be `Clone + Eq + Hash + Debug + Send + Sync +
///   'static`.
///
/// List **every** field (the rebuilt struct is written out field by field, so a missing
/// one does not compile); the order of the list is the leaf order. Child fields must
/// implement `PyTree`; fields marked `#[static]` are carried in the
/// [`TreeDef`](crate::tree::TreeDef) (compared and hashed, cloned back out on unflatten)
/// and must be `Clone + Eq + Hash + Debug + Send + Sync + 'static`; floats are not `Eq`, so
/// leave a float field unmarked (Rust scalars are static nodes anyway) or wrap it in
/// [`StaticFloat`](crate::tree::StaticFloat). Generic structs are not supported: implement
/// the trait by hand (see the [`tree`](crate::tree) module docs).
///
/// ```
/// use olympus::{numpy as np, tree, Array};
///
/// #[derive(Clone, Debug, PartialEq, Eq, Hash)]
/// enum Activation { Relu, Tanh }
/// olympus::register_pytree!(static Activation);
///
/// struct Layer { w: Array, b: Option<Array>, activation: Activation, name: String }
/// olympus::register_pytree!(Layer { w, b, activation, #[static] name });
///
/// struct Mlp(Vec<Layer>, u32);
/// olympus::register_pytree!(Mlp(0, #[static] 1));
///
/// let x = np::array(&[1.0f32, 2.0])?;
/// let layer = |act| Layer { w: x.clone(), b: None, activation: act, name: "l".into() };
/// let mlp = Mlp(vec![layer(Activation::Relu), layer(Activation::Tanh)], 7);
/// let (leaves, def) = tree::tree_flatten(&mlp);
/// assert_eq!(leaves.len(), 2);
/// assert_eq!(
///     def.to_string(),
///     "PyTreeDef(Mlp([Layer { w: *, b: None, activation: Relu, name: \"l\" }, \
///      Layer { w: *, b: None, activation: Tanh, name: \"l\" }], 7))"
/// );
/// let back: Mlp = tree::tree_unflatten(&def, leaves)?;
/// assert_eq!(back.0[1].activation, Activation::Tanh);
/// # Ok::<(), olympus::Error>(())
/// ```
#[macro_export]
macro_rules! register_pytree {
    // Flatten: chain builder calls onto the accumulated expression.
    (@flat $self:ident $leaves:ident [$($acc:tt)*];) => { $($acc)* };
    (@flat $self:ident $leaves:ident [$($acc:tt)*]; #[static] $f:tt $(, $($rest:tt)*)?) => {
        $crate::register_pytree!(@flat $self $leaves [$($acc)*
            .static_field(
                ::core::stringify!($f),
                ::core::clone::Clone::clone(&$self.$f),
            )
        ]; $($($rest)*)?)
    };
    (@flat $self:ident $leaves:ident [$($acc:tt)*]; $f:tt $(, $($rest:tt)*)?) => {
        $crate::register_pytree!(@flat $self $leaves [$($acc)*
            .field(
                ::core::stringify!($f),
                $crate::tree::PyTree::flatten_into(&$self.$f, $leaves),
            )
        ]; $($($rest)*)?)
    };
    // Unflatten: accumulate `field: value,` pairs, then write the struct out.
    (@build $r:ident [$($acc:tt)*];) => { Self { $($acc)* } };
    (@build $r:ident [$($acc:tt)*]; #[static] $f:tt $(, $($rest:tt)*)?) => {
        $crate::register_pytree!(@build $r [$($acc)*
            $f: $r.static_field(::core::stringify!($f))?,
        ]; $($($rest)*)?)
    };
    (@build $r:ident [$($acc:tt)*]; $f:tt $(, $($rest:tt)*)?) => {
        $crate::register_pytree!(@build $r [$($acc)*
            $f: $r.field(::core::stringify!($f))?,
        ]; $($($rest)*)?)
    };
    (@impl $name:ident, $builder:ident; $($fields:tt)*) => {
        impl $crate::tree::PyTree for $name {
            fn flatten_into(
                &self,
                leaves: &mut ::std::vec::Vec<$crate::Array>,
            ) -> $crate::tree::TreeDef {
                $crate::register_pytree!(@flat self leaves
                    [$crate::tree::TreeDef::$builder(::core::stringify!($name))]; $($fields)*)
                .build()
            }

            fn unflatten_from(
                def: &$crate::tree::TreeDef,
                leaves: &mut $crate::tree::Leaves<'_>,
            ) -> $crate::Result<Self> {
                let mut r =
                    $crate::tree::StructReader::open(def, leaves, ::core::stringify!($name))?;
                let value = $crate::register_pytree!(@build r []; $($fields)*);
                r.finish()?;
                ::core::result::Result::Ok(value)
            }
        }
    };
    (static $name:ident) => {
        impl $crate::tree::PyTree for $name {
            fn flatten_into(
                &self,
                _leaves: &mut ::std::vec::Vec<$crate::Array>,
            ) -> $crate::tree::TreeDef {
                $crate::tree::TreeDef::constant(::core::clone::Clone::clone(self))
            }

            fn unflatten_from(
                def: &$crate::tree::TreeDef,
                leaves: &mut $crate::tree::Leaves<'_>,
            ) -> $crate::Result<Self> {
                leaves.constant(def)
            }
        }
    };
    ($name:ident { $($fields:tt)* }) => {
        $crate::register_pytree!(@impl $name, build_struct; $($fields)*);
    };
    ($name:ident ( $($fields:tt)* )) => {
        $crate::register_pytree!(@impl $name, build_tuple_struct; $($fields)*);
    };
}
