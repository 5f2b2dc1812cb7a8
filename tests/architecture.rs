//! Keeps the crate's modules in layers without cycles, each depending only on the ones
//! below it (the map is ARCHITECTURE.md). This test reads the
//! sources under `src/` with the standard library alone, takes each file's dependencies on
//! other modules (`crate::`, `super::` and `self::` paths, in `use` items and in code), and
//! finds the strongly connected components at two granularities:
//!
//! - top-level modules (`array`, `jit`, `numpy`, ...), submodules collapsed into them;
//! - files within one top-level module (`runtime/device`, `runtime/queue`, ...).
//!
//! `no_module_cycles` fails on any cycle at either granularity and prints it, one shortest
//! cycle and every edge inside the component, each with the file and line it comes from.
//! `imports_name_the_defining_module` fails on a path through another top-level module's
//! re-export, so the imports a reader sees are the real dependencies.
//!
//! The scan is lexical, not a parser. Comments, string literals and `#[cfg(test)]` items are
//! skipped. `$crate::` paths in macro bodies are not counted: they are dependencies of the
//! macro's callers. A path resolves to the module that defines what it names: through the
//! names modules re-export with `pub use` (`crate::Array` is `array`'s,
//! `crate::runtime::Device` is `runtime/device`'s) and exported macros, else to the most
//! specific module it names. A module's `mod child;` declarations and its `pub use` of its
//! own submodules' items are containment (its facade), not dependencies: a submodule may use
//! its parent's items, and the parent is then in a cycle with it only if its own code uses
//! the submodule back.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fs;
use std::path::Path;

#[test]
fn no_module_cycles() -> Result<(), String> {
    let analysis = Analysis::load()?;
    assert!(
        !analysis.files.is_empty() && !analysis.modules.is_empty(),
        "no dependencies found under src/"
    );
    let found = analysis.cycles();
    assert!(
        found.is_empty(),
        "module cycles (see ARCHITECTURE.md for the layers):\n{}",
        analysis.report(&found)
    );
    Ok(())
}

/// Every import points down ARCHITECTURE.md's table of layers, and every module is in it.
#[test]
fn imports_point_down_the_layers() -> Result<(), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = fs::read_to_string(root.join("ARCHITECTURE.md")).map_err(|e| e.to_string())?;
    // Rows `| 4 | `primitive` | ... |`.
    let layers: BTreeMap<String, u32> = doc
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let layer = cells.get(1)?.parse().ok()?;
            let module = cells.get(2)?.strip_prefix('`')?.strip_suffix('`')?;
            Some((module.to_string(), layer))
        })
        .collect();
    let analysis = Analysis::load()?;
    let mut problems = String::new();
    for ((a, b), at) in &analysis.modules {
        match (layers.get(a), layers.get(b)) {
            (Some(la), Some(lb)) if la > lb => {}
            (Some(la), Some(lb)) => {
                problems += &format!("{a} (layer {la}) imports {b} (layer {lb}) at {at}\n")
            }
            _ => problems += &format!("{a} -> {b} ({at}): a module missing from ARCHITECTURE.md\n"),
        }
    }
    assert!(
        problems.is_empty(),
        "imports against ARCHITECTURE.md's layers:\n{problems}"
    );
    Ok(())
}

/// Every path names the module that defines what it imports, never another top-level
/// module that re-exports it (`crate::lax::Primitive` for `primitive`'s `Primitive`):
/// reading the imports then shows the real dependencies. The crate root's re-exports
/// (`crate::Result`) are the public facade and may be used anywhere.
#[test]
fn imports_name_the_defining_module() -> Result<(), String> {
    let analysis = Analysis::load()?;
    assert!(
        analysis.through.is_empty(),
        "paths through another module's re-export (name the defining module instead):\n{}",
        analysis.through.join("\n")
    );
    Ok(())
}

/// The dependency graphs at both granularities.
struct Analysis {
    /// Edges between files of one top-level module, with the first place each occurs.
    files: Graph,
    /// Edges between top-level modules.
    modules: Graph,
    /// Paths through another top-level module's re-export, as `file:line: path (defined
    /// in module)`.
    through: Vec<String>,
}

/// Edges `(from, to)` with an example `file:line` for each.
type Graph = BTreeMap<(String, String), String>;

impl Analysis {
    fn load() -> Result<Self, String> {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut paths = Vec::new();
        collect_rs(&src, &mut paths)?;
        paths.sort();
        let mut sources = Vec::new();
        for path in &paths {
            let text = fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
            let rel = path
                .strip_prefix(&format!("{}/", src.display()))
                .unwrap_or(path);
            sources.push(Source {
                path: format!("src/{rel}"),
                node: node_name(rel),
                toks: strip_cfg_test(&lex(&text)),
            });
        }
        let nodes: BTreeSet<String> = sources
            .iter()
            .filter(|s| !s.node.is_empty())
            .map(|s| s.node.clone())
            .collect();
        let aliases = module_aliases(&sources, &nodes);
        let mut all = Graph::new();
        let mut through = Vec::new();
        for s in sources.iter().filter(|s| !s.node.is_empty()) {
            let (deps, via) = s.deps(&nodes, &aliases);
            through.extend(via.into_iter().map(|(named, target, line)| {
                format!(
                    "{}:{line}: through `{named}`, defined in `{target}`",
                    s.path
                )
            }));
            for (target, line) in deps {
                if target != s.node {
                    all.entry((s.node.clone(), target))
                        .or_insert_with(|| format!("{}:{line}", s.path));
                }
            }
        }
        let mut files = Graph::new();
        let mut modules = Graph::new();
        for ((a, b), at) in all {
            let (ta, tb) = (top(&a).to_string(), top(&b).to_string());
            if ta == tb {
                files.insert((a, b), at);
            } else {
                modules.entry((ta, tb)).or_insert(at);
            }
        }
        Ok(Analysis {
            files,
            modules,
            through,
        })
    }

    /// The components of both graphs, top-level modules first.
    fn cycles(&self) -> Vec<Vec<String>> {
        let mut found = sccs(&self.modules);
        found.extend(sccs(&self.files));
        found
    }

    fn graph(&self, comp: &[String]) -> &Graph {
        if comp.iter().any(|n| n.contains('/')) {
            &self.files
        } else {
            &self.modules
        }
    }

    /// A component: one shortest cycle through its first node, then every edge inside it.
    fn describe(&self, comp: &[String]) -> String {
        let graph = self.graph(comp);
        let mut out = format!(
            "  {{{}}}\n    e.g. {}\n",
            comp.join(", "),
            shortest_cycle(graph, comp).join(" -> ")
        );
        for ((a, b), at) in graph {
            if comp.contains(a) && comp.contains(b) {
                out += &format!("    {a} -> {b}  ({at})\n");
            }
        }
        out
    }

    fn report(&self, found: &[Vec<String>]) -> String {
        let mut out = format!("{} module cycles:\n", found.len());
        for comp in found {
            out += &self.describe(comp);
        }
        out
    }
}

fn collect_rs(dir: &Path, out: &mut Vec<String>) -> Result<(), String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.is_dir() {
            collect_rs(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path.display().to_string());
        }
    }
    Ok(())
}

/// `lib.rs` -> "" (the crate root), `foo.rs` and `foo/mod.rs` -> `foo`, `foo/bar.rs` ->
/// `foo/bar`.
fn node_name(rel: &str) -> String {
    let stem = rel.strip_suffix(".rs").unwrap_or(rel);
    let stem = stem.strip_suffix("/mod").unwrap_or(stem);
    if stem == "lib" || stem == "main" {
        String::new()
    } else {
        stem.to_string()
    }
}

fn top(node: &str) -> &str {
    node.split('/').next().unwrap_or(node)
}

/// What a module re-exports: for each module (the crate root is ""), the names its `pub use`
/// items bring in (every `use` in `lib.rs`) and, at the root, `#[macro_export]` macros,
/// mapped to the absolute path they stand for. A path through a module to a name it
/// re-exports resolves to the module that defines the name.
type Aliases = BTreeMap<String, BTreeMap<String, Vec<String>>>;

fn module_aliases(sources: &[Source], nodes: &BTreeSet<String>) -> Aliases {
    let mut aliases = Aliases::new();
    for s in sources {
        let toks = &s.toks;
        let module: Vec<String> = if s.node.is_empty() {
            Vec::new()
        } else {
            s.node.split('/').map(str::to_string).collect()
        };
        for i in 0..toks.len() {
            if ident(toks, i, "use") && (s.node.is_empty() || is_pub(toks, i)) {
                let mut trees = Vec::new();
                let mut j = i + 1;
                use_tree(toks, &mut j, &[], &mut trees);
                for t in trees {
                    let name = t
                        .alias
                        .or_else(|| t.path.last().cloned())
                        .unwrap_or_default();
                    if let Some(abs) = absolute(&t.path, &module, true, nodes) {
                        let child = [module.as_slice(), std::slice::from_ref(&name)]
                            .concat()
                            .join("/");
                        if name != "*" && name != "self" && !nodes.contains(&child) {
                            aliases
                                .entry(s.node.clone())
                                .or_default()
                                .entry(name)
                                .or_insert(abs);
                        }
                    }
                }
            }
            if ident(toks, i, "macro_rules") && punct(toks, i + 1, '!') && exported(toks, i) {
                if let Some(Tok::Ident(name)) = toks.get(i + 2).map(|t| &t.tok) {
                    let path = s.node.split('/').map(str::to_string).collect();
                    aliases
                        .entry(String::new())
                        .or_default()
                        .entry(name.clone())
                        .or_insert(path);
                }
            }
        }
    }
    aliases
}

/// Whether the `use` at token `i` is `pub` (`pub use`, `pub(crate) use`, ...).
fn is_pub(toks: &[Token], i: usize) -> bool {
    if i >= 1 && ident(toks, i - 1, "pub") {
        return true;
    }
    if i >= 1 && punct(toks, i - 1, ')') {
        let mut j = i - 1;
        while j > 0 && !punct(toks, j, '(') {
            j -= 1;
        }
        return j >= 1 && ident(toks, j - 1, "pub");
    }
    false
}

/// Whether the attributes right before token `i` include `#[macro_export]`.
fn exported(toks: &[Token], mut i: usize) -> bool {
    while i > 0 && punct(toks, i - 1, ']') {
        let mut depth = 0usize;
        let mut j = i - 1;
        let mut found = false;
        loop {
            match toks[j].tok {
                Tok::Punct(']') => depth += 1,
                Tok::Punct('[') => depth -= 1,
                _ => found |= ident(toks, j, "macro_export"),
            }
            if depth == 0 || j == 0 {
                break;
            }
            j -= 1;
        }
        if found {
            return true;
        }
        i = j.saturating_sub(1); // the `#`
    }
    false
}

struct Source {
    path: String,
    node: String,
    toks: Vec<Token>,
}

impl Source {
    /// Every module this file depends on, with the line where it does; and the paths that
    /// reach a module through another top-level module's re-export (the module named, the
    /// one defining the item, the line).
    #[allow(clippy::type_complexity)]
    fn deps(
        &self,
        nodes: &BTreeSet<String>,
        aliases: &Aliases,
    ) -> (Vec<(String, usize)>, Vec<(String, String, usize)>) {
        let toks = &self.toks;
        let module: Vec<String> = self.node.split('/').map(str::to_string).collect();
        // Inline modules (`mod name { ... }`) with the brace depth of their bodies.
        let mut inline: Vec<(String, usize)> = Vec::new();
        let mut depth = 0usize;
        let mut out = Vec::new();
        let mut via = Vec::new();
        // A path naming one top-level module for an item another one defines.
        let mut check = |abs: &[String], target: &Option<String>, line: usize| {
            if let (Some(named), Some(target)) = (named_module(abs, nodes), target) {
                if top(&named) != top(target) {
                    via.push((named, target.clone(), line));
                }
            }
        };
        let mut i = 0;
        while i < toks.len() {
            let mut cur = module.clone();
            cur.extend(inline.iter().map(|(n, _)| n.clone()));
            let line = toks[i].line;
            if ident(toks, i, "use") {
                // A module's `pub use` of its own submodules' items is its facade, not a
                // dependency of its code (the submodules' users depend on them).
                let facade = is_pub(toks, i);
                let mut trees = Vec::new();
                i += 1;
                use_tree(toks, &mut i, &[], &mut trees);
                while i < toks.len() && !punct(toks, i, ';') {
                    i += 1;
                }
                for t in trees {
                    if let Some(abs) = absolute(&t.path, &cur, true, nodes) {
                        let inside = |n: &String| n.starts_with(&format!("{}/", self.node));
                        let target = resolve(abs.clone(), nodes, aliases);
                        check(&abs, &target, t.line);
                        out.extend(
                            target
                                .filter(|n| !(facade && inside(n)))
                                .map(|n| (n, t.line)),
                        );
                    }
                }
                continue;
            }
            // `mod name;` declares a submodule: containment, not a dependency.
            if ident(toks, i, "mod") {
                if let Some(Tok::Ident(name)) = toks.get(i + 1).map(|t| &t.tok) {
                    if punct(toks, i + 2, ';') {
                    } else if punct(toks, i + 2, '{') {
                        depth += 1;
                        inline.push((name.clone(), depth));
                    }
                    i += 3;
                    continue;
                }
            }
            match toks[i].tok {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    if inline.last().is_some_and(|(_, d)| *d == depth) {
                        inline.pop();
                    }
                    depth = depth.saturating_sub(1);
                }
                _ => {}
            }
            let starts_path = ["crate", "super", "self"].iter().any(|k| ident(toks, i, k))
                && sep(toks, i + 1)
                && (i == 0 || !(sep(toks, i - 1) || punct(toks, i - 1, '$')));
            if starts_path {
                let mut path = Vec::new();
                while let Some(Tok::Ident(seg)) = toks.get(i).map(|t| &t.tok) {
                    path.push(seg.clone());
                    i += 1;
                    if !sep(toks, i) {
                        break;
                    }
                    i += 1;
                }
                if let Some(abs) = absolute(&path, &cur, false, nodes) {
                    let target = resolve(abs.clone(), nodes, aliases);
                    check(&abs, &target, line);
                    out.extend(target.map(|n| (n, line)));
                }
                continue;
            }
            i += 1;
        }
        (out, via)
    }
}

/// One leaf of a `use` tree: the full path (`*` for a glob), its `as` name, and its line.
struct UseLeaf {
    path: Vec<String>,
    alias: Option<String>,
    line: usize,
}

/// Parses a use tree at `i` (`a::b`, `a::{b, c::d as e}`, `a::*`), leaving `i` after it.
fn use_tree(toks: &[Token], i: &mut usize, prefix: &[String], out: &mut Vec<UseLeaf>) {
    let mut path = prefix.to_vec();
    let mut line = toks.get(*i).map_or(0, |t| t.line);
    if sep(toks, *i) {
        path.push("::".to_string()); // `::name` is an external crate
        *i += 1;
    }
    loop {
        match toks.get(*i).map(|t| &t.tok) {
            Some(Tok::Ident(s)) if s != "as" => {
                path.push(s.clone());
                line = toks[*i].line;
                *i += 1;
                if !sep(toks, *i) {
                    break;
                }
                *i += 1;
            }
            Some(Tok::Punct('*')) => {
                path.push("*".to_string());
                *i += 1;
                break;
            }
            Some(Tok::Punct('{')) => {
                *i += 1;
                while *i < toks.len() && !punct(toks, *i, '}') {
                    let before = *i;
                    use_tree(toks, i, &path, out);
                    if punct(toks, *i, ',') || *i == before {
                        *i += 1;
                    }
                }
                *i += 1;
                return;
            }
            _ => break,
        }
    }
    let mut alias = None;
    if ident(toks, *i, "as") {
        if let Some(Tok::Ident(a)) = toks.get(*i + 1).map(|t| &t.tok) {
            alias = Some(a.clone());
        }
        *i += 2;
    }
    if path.len() > prefix.len() {
        out.push(UseLeaf { path, alias, line });
    }
}

/// A path as absolute segments from the crate root, or `None` if it leaves the crate.
/// `cur` is the module the path is written in; in a `use`, a path may also start with the
/// name of a child module.
fn absolute(
    raw: &[String],
    cur: &[String],
    in_use: bool,
    nodes: &BTreeSet<String>,
) -> Option<Vec<String>> {
    let first = raw.first()?;
    let (mut abs, rest) = match first.as_str() {
        "crate" => (Vec::new(), &raw[1..]),
        "self" => (cur.to_vec(), &raw[1..]),
        "super" => {
            let mut abs = cur.to_vec();
            let mut n = 0;
            while raw.get(n).is_some_and(|s| s == "super") {
                abs.pop()?;
                n += 1;
            }
            (abs, &raw[n..])
        }
        name if in_use && nodes.contains(&[cur, &[name.to_string()]].concat().join("/")) => {
            (cur.to_vec(), raw)
        }
        _ => return None,
    };
    for seg in rest {
        match seg.as_str() {
            "*" => break,
            "self" => {}
            _ => abs.push(seg.clone()),
        }
    }
    Some(abs)
}

/// The module defining what an absolute path names: the most specific module on the path,
/// followed through the names modules re-export; `None` for the crate root.
fn resolve(mut segs: Vec<String>, nodes: &BTreeSet<String>, aliases: &Aliases) -> Option<String> {
    // Re-exports may chain (the root's `Device` is `runtime`'s, which is `runtime/device`'s).
    for _ in 0..8 {
        let n = (0..=segs.len())
            .rev()
            .find(|&n| n == 0 || nodes.contains(&segs[..n].join("/")))
            .unwrap_or(0);
        let module = segs[..n].join("/");
        let Some(target) = segs.get(n).and_then(|name| aliases.get(&module)?.get(name)) else {
            break;
        };
        if target.len() <= n && target[..] == segs[..target.len()] {
            break; // a module re-exporting itself
        }
        segs = target.iter().chain(&segs[n + 1..]).cloned().collect();
    }
    (1..=segs.len())
        .rev()
        .map(|n| segs[..n].join("/"))
        .find(|n| nodes.contains(n))
}

/// The most specific module an absolute path names, before following re-exports; `None`
/// for the crate root.
fn named_module(segs: &[String], nodes: &BTreeSet<String>) -> Option<String> {
    (1..=segs.len())
        .rev()
        .map(|n| segs[..n].join("/"))
        .find(|n| nodes.contains(n))
}

/// Strongly connected components with more than one node (Tarjan), each sorted.
fn sccs(graph: &Graph) -> Vec<Vec<String>> {
    let mut t = Tarjan {
        graph,
        next: 0,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        comps: Vec::new(),
    };
    let nodes: BTreeSet<&str> = graph
        .keys()
        .flat_map(|(a, b)| [a.as_str(), b.as_str()])
        .collect();
    for v in nodes {
        if !t.index.contains_key(v) {
            t.visit(v);
        }
    }
    t.comps.sort();
    t.comps
}

struct Tarjan<'a> {
    graph: &'a Graph,
    next: usize,
    index: BTreeMap<&'a str, usize>,
    low: BTreeMap<&'a str, usize>,
    stack: Vec<&'a str>,
    on_stack: BTreeSet<&'a str>,
    comps: Vec<Vec<String>>,
}

impl<'a> Tarjan<'a> {
    fn visit(&mut self, v: &'a str) {
        self.index.insert(v, self.next);
        self.low.insert(v, self.next);
        self.next += 1;
        self.stack.push(v);
        self.on_stack.insert(v);
        for w in successors(self.graph, v) {
            let reach = if !self.index.contains_key(w) {
                self.visit(w);
                self.low[w]
            } else if self.on_stack.contains(w) {
                self.index[w]
            } else {
                continue;
            };
            if reach < self.low[v] {
                self.low.insert(v, reach);
            }
        }
        if self.low[v] == self.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = self.stack.pop() {
                self.on_stack.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                self.comps.push(comp);
            }
        }
    }
}

fn successors<'a>(graph: &'a Graph, v: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    graph
        .keys()
        .filter(move |(a, _)| a == v)
        .map(|(_, b)| b.as_str())
}

/// A shortest cycle through `comp[0]` inside the component, as a list of nodes.
fn shortest_cycle<'a>(graph: &'a Graph, comp: &'a [String]) -> Vec<&'a str> {
    let Some(start) = comp.first().map(String::as_str) else {
        return Vec::new();
    };
    let mut prev: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for w in successors(graph, v).filter(|w| comp.iter().any(|c| c == w)) {
            if w == start {
                let mut path = vec![start, v];
                while let Some(&p) = prev.get(path[path.len() - 1]) {
                    path.push(p);
                }
                path.reverse();
                return path;
            }
            if !prev.contains_key(w) {
                prev.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    vec![start]
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Punct(char),
    /// `::`
    PathSep,
    /// A string, character or number literal.
    Literal,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    line: usize,
}

fn ident(toks: &[Token], i: usize, s: &str) -> bool {
    matches!(toks.get(i).map(|t| &t.tok), Some(Tok::Ident(x)) if x == s)
}

fn punct(toks: &[Token], i: usize, c: char) -> bool {
    toks.get(i).is_some_and(|t| t.tok == Tok::Punct(c))
}

fn sep(toks: &[Token], i: usize) -> bool {
    toks.get(i).is_some_and(|t| t.tok == Tok::PathSep)
}

/// Splits Rust source into identifiers, `::` and punctuation, dropping comments and
/// replacing literals with `Tok::Literal`.
fn lex(src: &str) -> Vec<Token> {
    let c: Vec<char> = src.chars().collect();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let mut toks = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < c.len() {
        let (ch, start) = (c[i], line);
        let tok = if ch == '\n' {
            line += 1;
            i += 1;
            continue;
        } else if ch.is_whitespace() {
            i += 1;
            continue;
        } else if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
            continue;
        } else if ch == '/' && at(i + 1) == '*' {
            i = skip_block_comment(&c, i, &mut line);
            continue;
        } else if ch == '"' {
            i = skip_quoted(&c, i + 1, '"', &mut line);
            Tok::Literal
        } else if let Some(end) = raw_string_end(&c, i, &mut line) {
            i = end;
            Tok::Literal
        } else if ch == 'b' && (at(i + 1) == '"' || at(i + 1) == '\'') {
            i = skip_quoted(&c, i + 2, at(i + 1), &mut line);
            Tok::Literal
        } else if ch == '\'' {
            if at(i + 1) == '\\' || (at(i + 2) == '\'' && at(i + 1) != '\'') {
                i = skip_quoted(&c, i + 1, '\'', &mut line);
                Tok::Literal
            } else {
                i += 1; // a lifetime or a label
                Tok::Punct('\'')
            }
        } else if ch == 'r' && at(i + 1) == '#' && is_ident_start(at(i + 2)) {
            let s = i + 2;
            i = s;
            while i < c.len() && is_ident_char(c[i]) {
                i += 1;
            }
            Tok::Ident(c[s..i].iter().collect())
        } else if is_ident_start(ch) || ch.is_ascii_digit() {
            let s = i;
            while i < c.len() && is_ident_char(c[i]) {
                i += 1;
            }
            if ch.is_ascii_digit() {
                Tok::Literal
            } else {
                Tok::Ident(c[s..i].iter().collect())
            }
        } else if ch == ':' && at(i + 1) == ':' {
            i += 2;
            Tok::PathSep
        } else {
            i += 1;
            Tok::Punct(ch)
        };
        toks.push(Token { tok, line: start });
    }
    toks
}

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_ident_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Skips to after the closing `quote`, honouring backslash escapes.
fn skip_quoted(c: &[char], mut i: usize, quote: char, line: &mut usize) -> usize {
    while i < c.len() {
        if c[i] == '\n' {
            *line += 1;
        }
        if c[i] == '\\' {
            if c.get(i + 1) == Some(&'\n') {
                *line += 1;
            }
            i += 2;
        } else if c[i] == quote {
            return i + 1;
        } else {
            i += 1;
        }
    }
    i
}

/// Skips a (possibly nested) block comment starting at `i`.
fn skip_block_comment(c: &[char], mut i: usize, line: &mut usize) -> usize {
    let mut depth = 0usize;
    while i < c.len() {
        if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            depth += 1;
            i += 2;
        } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            if c[i] == '\n' {
                *line += 1;
            }
            i += 1;
        }
    }
    i
}

/// The end of a raw string (`r"..."`, `r#"..."#`, `br"..."`) starting at `i`, if one does.
fn raw_string_end(c: &[char], i: usize, line: &mut usize) -> Option<usize> {
    let mut j = match (c.get(i), c.get(i + 1)) {
        (Some('r'), _) => i + 1,
        (Some('b'), Some('r')) => i + 2,
        _ => return None,
    };
    let mut hashes = 0;
    while c.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    if c.get(j) != Some(&'"') {
        return None;
    }
    j += 1;
    while j < c.len() {
        if c[j] == '"' && (1..=hashes).all(|k| c.get(j + k) == Some(&'#')) {
            return Some(j + 1 + hashes);
        }
        if c[j] == '\n' {
            *line += 1;
        }
        j += 1;
    }
    Some(j)
}

/// Drops every item (or field, or statement) marked `#[cfg(test)]`, and the whole file if
/// it starts with `#![cfg(test)]`.
fn strip_cfg_test(toks: &[Token]) -> Vec<Token> {
    let is_cfg_test = |i: usize, inner: bool| {
        let o = usize::from(inner);
        punct(toks, i, '#')
            && (!inner || punct(toks, i + 1, '!'))
            && punct(toks, i + 1 + o, '[')
            && ident(toks, i + 2 + o, "cfg")
            && punct(toks, i + 3 + o, '(')
            && ident(toks, i + 4 + o, "test")
            && punct(toks, i + 5 + o, ')')
            && punct(toks, i + 6 + o, ']')
    };
    if is_cfg_test(0, true) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if is_cfg_test(i, false) {
            i = skip_item(toks, i + 7);
        } else {
            out.push(toks[i].clone());
            i += 1;
        }
    }
    out
}

/// The index after the item starting at `i`: after its `;` or its closing `}`, or at a `,` or
/// closing bracket that ends it in a list.
fn skip_item(toks: &[Token], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < toks.len() {
        match toks[i].tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(c @ (')' | ']' | '}')) => {
                if depth == 0 {
                    return i;
                }
                depth -= 1;
                if depth == 0 && c == '}' {
                    return i + 1;
                }
            }
            Tok::Punct(';' | ',') if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    i
}
