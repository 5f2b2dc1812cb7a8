//! How an elementwise kernel reads each operand: an [`InputMap`] with the operand's layout
//! re-expressed over the output's shape. Primitives give theirs in their `Lowering` rule
//! (`rules::Lowering::input_maps`).

use crate::shape::Layout;

/// How an input's element for an output index is found.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum InputMap {
    /// The layout (over the output's shape, broadcasting applied) gives the element.
    Plain,
    /// Per dimension `(lo, len)`: the coordinate `c` of the output reads the operand's
    /// coordinate `clamp(c - lo, 0, len - 1)`; `inb_x{k}(i)` tells whether every coordinate
    /// was in range. The layout's shape is the output's; its strides are the operand's.
    /// (Concatenation, padding.)
    Clamp(Vec<(isize, usize)>),
    /// Not loaded per element: the rule calls `ld_x{k}(i, j)`, which reads the element at
    /// the output index with coordinate `clamp(j, 0, len - 1)` along a dimension of
    /// `stride` (the layout has stride 0 there). (Gathers.)
    Gather { stride: isize, len: usize },
}

/// The maps of operands read at the output index: each layout as it is.
pub(crate) fn plain(layouts: &[&Layout]) -> Vec<(Layout, InputMap)> {
    layouts
        .iter()
        .map(|l| ((*l).clone(), InputMap::Plain))
        .collect()
}

/// `l`'s strides and offset over the output's shape (for maps that clamp or gather).
pub(crate) fn over_out(l: &Layout, out_shape: &[usize]) -> Layout {
    Layout {
        shape: out_shape.to_vec(),
        strides: l.strides.clone(),
        offset: l.offset,
    }
}
