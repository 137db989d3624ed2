//! Import circles between the modules of every crate of the workspace.
//!
//! Reads each library and binary target that `cargo metadata` lists (tests, benches
//! and examples are not layered), follows `mod` declarations to build the module
//! tree, and collects every path that names a module of the same crate: `use` lines
//! and paths in code and in macro bodies (`crate::…`, `super::…`, `self::…`, a child
//! module's name, a name a `use` brought in). A path that reaches an item through a
//! re-export (`pub use`) counts for the module that defines it; the re-export itself
//! is naming, not dependence. Inline modules (`mod tests { … }`) belong to the module
//! that holds them.
//!
//! The rule it checks, at every level of every crate: among a module and its
//! children (each child standing for its whole subtree), the "uses" arrows form no
//! circle. So no two files import each other, no two rooms import each other, and a
//! room's `mod.rs` does not use a child that uses it back.
//!
//!   cargo run -p module-check            # check; exits 1 on any circle
//!   cargo run -p module-check -- --tree  # also print each crate's modules with line counts
//!   cargo run -p module-check -- --edges # also print every arrow between rooms

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use proc_macro2::{TokenStream, TokenTree};
use syn::spanned::Spanned;
use syn::visit::Visit;

/// One module of a crate: a file, with its inline modules folded in.
struct Module {
    /// Names from the crate root (`[]` for the root).
    path: Vec<String>,
    file: PathBuf,
    lines: usize,
    parent: Option<usize>,
    children: BTreeMap<String, usize>,
    /// Names brought in by `use` (the name → the path as written, whether `pub`).
    bindings: BTreeMap<String, (Vec<String>, bool)>,
    refs: Vec<Ref>,
}

/// A path that may name a module of the crate.
struct Ref {
    segments: Vec<String>,
    line: usize,
    /// A `pub use`: naming, not dependence.
    reexport: bool,
    /// How many inline modules deep the path was written (`super` leaves those first).
    inline_depth: usize,
}

struct Crate {
    name: String,
    modules: Vec<Module>,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let tree = args.iter().any(|a| a == "--tree");
    let show_edges = args.iter().any(|a| a == "--edges");
    let targets = match workspace_targets() {
        Ok(targets) => targets,
        Err(e) => {
            eprintln!("module-check: {e}");
            return ExitCode::from(2);
        }
    };
    let mut circles = 0usize;
    for (name, root) in targets {
        let krate = match load(&name, &root) {
            Ok(k) => k,
            Err(e) => {
                eprintln!("module-check: {name}: {e}");
                return ExitCode::from(2);
            }
        };
        let edges = edges(&krate);
        let found = check(&krate, &edges);
        circles += found.len();
        let lines: usize = krate.modules.iter().map(|m| m.lines).sum();
        println!(
            "{}: {} modules, {} lines, {} arrows between modules, {}",
            krate.name,
            krate.modules.len(),
            lines,
            edges.len(),
            if found.is_empty() {
                "no circles".to_string()
            } else {
                format!("{} circle(s)", found.len())
            }
        );
        // Floors are only defined where the arrows point one way.
        if krate.modules.len() > 1 && found.is_empty() {
            for (depth, rooms) in layers(&krate, &edges) {
                println!("  floor {depth}: {}", rooms.join(", "));
            }
        }
        for circle in &found {
            println!("  CIRCLE {circle}");
        }
        if show_edges {
            print_room_edges(&krate, &edges);
        }
        if tree {
            print_tree(&krate, 0, 1);
        }
    }
    if circles > 0 {
        eprintln!(
            "module-check: {circles} import circle(s); a piece used by both sides belongs one floor down"
        );
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// (crate and target name, root file) of every lib and bin target in the workspace.
fn workspace_targets() -> Result<Vec<(String, PathBuf)>, String> {
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["metadata", "--no-deps", "--format-version", "1", "--locked"])
        .output()
        .map_err(|e| format!("cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("cargo metadata: {e}"))?;
    let mut targets = Vec::new();
    for package in meta["packages"].as_array().into_iter().flatten() {
        let pname = package["name"].as_str().unwrap_or("?");
        for target in package["targets"].as_array().into_iter().flatten() {
            let kinds: Vec<&str> = target["kind"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|k| k.as_str())
                .collect();
            if !kinds.iter().any(|k| *k == "lib" || *k == "bin") {
                continue;
            }
            let kind = if kinds.contains(&"lib") { "lib" } else { "bin" };
            let src = target["src_path"].as_str().unwrap_or_default();
            targets.push((
                format!("{pname} ({kind} {})", target["name"].as_str().unwrap_or("?")),
                PathBuf::from(src),
            ));
        }
    }
    targets.sort();
    Ok(targets)
}

fn load(name: &str, root: &Path) -> Result<Crate, String> {
    let mut krate = Crate {
        name: name.to_string(),
        modules: Vec::new(),
    };
    load_module(&mut krate, root, Vec::new(), None, true)?;
    Ok(krate)
}

fn load_module(
    krate: &mut Crate,
    file: &Path,
    path: Vec<String>,
    parent: Option<usize>,
    owns_dir: bool,
) -> Result<usize, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let parsed = syn::parse_file(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    let index = krate.modules.len();
    krate.modules.push(Module {
        path: path.clone(),
        file: file.to_path_buf(),
        lines: text.lines().count(),
        parent,
        children: BTreeMap::new(),
        bindings: BTreeMap::new(),
        refs: Vec::new(),
    });
    // Children of `lib.rs`, `main.rs` and `mod.rs` sit beside them; of `name.rs`, in `name/`.
    let dir = if owns_dir {
        file.parent().map(Path::to_path_buf).unwrap_or_default()
    } else {
        file.with_extension("")
    };
    let mut collector = Collector {
        refs: Vec::new(),
        bindings: BTreeMap::new(),
        depth: 0,
        mods: Vec::new(),
    };
    collector.items(&parsed.items);
    for name in std::mem::take(&mut collector.mods) {
        let flat = dir.join(format!("{name}.rs"));
        let nested = dir.join(&name).join("mod.rs");
        let (child_file, child_owns) = if flat.exists() {
            (flat, false)
        } else if nested.exists() {
            (nested, true)
        } else {
            return Err(format!("{}: module `{name}` has no file", file.display()));
        };
        let mut child_path = path.clone();
        child_path.push(name.clone());
        let child = load_module(krate, &child_file, child_path, Some(index), child_owns)?;
        krate.modules[index].children.insert(name, child);
    }
    let module = &mut krate.modules[index];
    module.refs = collector.refs;
    module.bindings = collector.bindings;
    Ok(index)
}

struct Collector {
    refs: Vec<Ref>,
    bindings: BTreeMap<String, (Vec<String>, bool)>,
    depth: usize,
    /// `mod name;` declarations (files), top level only.
    mods: Vec<String>,
}

impl Collector {
    fn items(&mut self, items: &[syn::Item]) {
        for item in items {
            match item {
                syn::Item::Mod(m) => match &m.content {
                    None if self.depth == 0 => self.mods.push(m.ident.to_string()),
                    None => {}
                    Some((_, inner)) => {
                        self.depth += 1;
                        self.items(inner);
                        self.depth -= 1;
                    }
                },
                syn::Item::Use(u) => {
                    let reexport = !matches!(u.vis, syn::Visibility::Inherited);
                    let line = u.span().start().line;
                    let mut flat = Vec::new();
                    flatten(&u.tree, Vec::new(), &mut flat);
                    for (segments, bound) in flat {
                        if let Some(name) = bound {
                            if self.depth == 0 {
                                self.bindings.insert(name, (segments.clone(), reexport));
                            }
                        }
                        self.refs.push(Ref {
                            segments,
                            line,
                            reexport,
                            inline_depth: self.depth,
                        });
                    }
                }
                other => self.visit_item(other),
            }
        }
    }

    fn push(&mut self, segments: Vec<String>, line: usize) {
        if !segments.is_empty() {
            self.refs.push(Ref {
                segments,
                line,
                reexport: false,
                inline_depth: self.depth,
            });
        }
    }

    fn tokens(&mut self, tokens: TokenStream) {
        // `crate :: a :: b`, `super :: a`, `self :: a` inside macro bodies.
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            match &trees[i] {
                TokenTree::Group(g) => self.tokens(g.stream()),
                TokenTree::Ident(id) if matches!(id.to_string().as_str(), "crate" | "super" | "self") => {
                    let line = id.span().start().line;
                    let mut segments = vec![id.to_string()];
                    let mut j = i + 1;
                    while j + 2 < trees.len() + 1 {
                        let colons = matches!((&trees.get(j), &trees.get(j + 1)),
                            (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) if a.as_char() == ':' && b.as_char() == ':');
                        match (colons, trees.get(j + 2)) {
                            (true, Some(TokenTree::Ident(next))) => {
                                segments.push(next.to_string());
                                j += 3;
                            }
                            _ => break,
                        }
                    }
                    if segments.len() > 1 {
                        self.push(segments, line);
                    }
                    i = j;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }
}

impl<'ast> Visit<'ast> for Collector {
    /// `pub(crate)`, `pub(super)`, `pub(in path)`: who may see an item, not a use.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.push(segments, path.span().start().line);
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(mac.tokens.clone());
        syn::visit::visit_macro(self, mac);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if let Some((_, inner)) = &m.content {
            self.depth += 1;
            self.items(inner);
            self.depth -= 1;
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        // Uses inside function bodies: dependence, bound nowhere we track.
        let mut flat = Vec::new();
        flatten(&u.tree, Vec::new(), &mut flat);
        let line = u.span().start().line;
        for (segments, _) in flat {
            self.push(segments, line);
        }
    }
}

/// A use tree as full paths, each with the name it binds (none for globs).
fn flatten(tree: &syn::UseTree, prefix: Vec<String>, out: &mut Vec<(Vec<String>, Option<String>)>) {
    match tree {
        syn::UseTree::Path(p) => {
            let mut next = prefix;
            next.push(p.ident.to_string());
            flatten(&p.tree, next, out);
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            let mut full = prefix;
            if name == "self" {
                let bound = full.last().cloned();
                out.push((full, bound));
            } else {
                full.push(name.clone());
                out.push((full, Some(name)));
            }
        }
        syn::UseTree::Rename(r) => {
            let mut full = prefix;
            if r.ident != "self" {
                full.push(r.ident.to_string());
            }
            out.push((full, Some(r.rename.to_string())));
        }
        syn::UseTree::Glob(_) => out.push((prefix, None)),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                flatten(t, prefix.clone(), out);
            }
        }
    }
}

/// The module a path, written in module `at`, finally names (through re-exports).
fn resolve(krate: &Crate, at: usize, segments: &[String], inline_depth: usize, hops: usize) -> Option<usize> {
    if hops > 16 || segments.is_empty() {
        return None;
    }
    let modules = &krate.modules;
    let mut cur = at;
    let mut i = 0;
    let mut inline = inline_depth;
    match segments[0].as_str() {
        "crate" => {
            cur = 0;
            i = 1;
        }
        "self" => i = 1,
        "super" => {
            while i < segments.len() && segments[i] == "super" {
                if inline > 0 {
                    inline -= 1;
                } else {
                    cur = modules[cur].parent?;
                }
                i += 1;
            }
        }
        first => {
            if !modules[at].children.contains_key(first) {
                let (target, _) = modules[at].bindings.get(first)?;
                let mut rest = target.clone();
                rest.extend_from_slice(&segments[1..]);
                return resolve(krate, at, &rest, 0, hops + 1);
            }
        }
    }
    while i < segments.len() {
        let name = &segments[i];
        if let Some(&child) = modules[cur].children.get(name) {
            cur = child;
            i += 1;
        } else if let Some((target, _)) = modules[cur].bindings.get(name) {
            let mut rest = target.clone();
            rest.extend_from_slice(&segments[i + 1..]);
            // A name bound in `cur` is resolved from `cur` itself.
            return resolve(krate, cur, &rest, 0, hops + 1).or(Some(cur));
        } else {
            break;
        }
    }
    Some(cur)
}

/// (from, to) → the first line of `from` that makes the arrow.
type Edges = BTreeMap<(usize, usize), usize>;

fn edges(krate: &Crate) -> Edges {
    let mut edges = Edges::new();
    for (index, module) in krate.modules.iter().enumerate() {
        for r in module.refs.iter().filter(|r| !r.reexport) {
            if let Some(target) = resolve(krate, index, &r.segments, r.inline_depth, 0) {
                if target != index {
                    let line = edges.entry((index, target)).or_insert(r.line);
                    *line = (*line).min(r.line);
                }
            }
        }
    }
    edges
}

fn is_within(krate: &Crate, mut module: usize, ancestor: usize) -> bool {
    loop {
        if module == ancestor {
            return true;
        }
        match krate.modules[module].parent {
            Some(p) => module = p,
            None => return false,
        }
    }
}

/// `module`'s representative among `parent` and its children: `parent` itself, the
/// child whose subtree holds it, or none (outside `parent`).
fn room_of(krate: &Crate, module: usize, parent: usize) -> Option<usize> {
    let mut cur = module;
    loop {
        if cur == parent {
            return Some(parent);
        }
        let up = krate.modules[cur].parent?;
        if up == parent {
            return Some(cur);
        }
        cur = up;
    }
}

fn name(krate: &Crate, module: usize) -> String {
    let path = &krate.modules[module].path;
    if path.is_empty() {
        "crate".into()
    } else {
        format!("crate::{}", path.join("::"))
    }
}

fn check(krate: &Crate, edges: &Edges) -> Vec<String> {
    let mut circles = Vec::new();
    for parent in 0..krate.modules.len() {
        let mut graph: BTreeMap<usize, BTreeMap<usize, (usize, usize)>> = BTreeMap::new();
        for (&(from, to), &line) in edges {
            if !is_within(krate, from, parent) || !is_within(krate, to, parent) {
                continue;
            }
            let (a, b) = (room_of(krate, from, parent), room_of(krate, to, parent));
            if let (Some(a), Some(b)) = (a, b) {
                if a != b {
                    graph.entry(a).or_default().entry(b).or_insert((from, line));
                }
            }
        }
        for (cycle, component) in cycles(&graph) {
            let members: Vec<String> = component.iter().map(|&m| name(krate, m)).collect();
            let mut text = vec![format!(
                "among {} ({}); for one:",
                members.len(),
                members.join(", ")
            )];
            for w in cycle.windows(2) {
                let (from, line) = graph[&w[0]][&w[1]];
                text.push(format!(
                    "{} → {} ({}:{line})",
                    name(krate, w[0]),
                    name(krate, w[1]),
                    krate.modules[from].file.display()
                ));
            }
            circles.push(text.join(" "));
        }
    }
    circles
}

/// One cycle per strongly connected component of more than one node.
fn cycles(graph: &BTreeMap<usize, BTreeMap<usize, (usize, usize)>>) -> Vec<(Vec<usize>, BTreeSet<usize>)> {
    let nodes: BTreeSet<usize> = graph
        .keys()
        .copied()
        .chain(graph.values().flat_map(|m| m.keys().copied()))
        .collect();
    let reach = |from: usize| -> BTreeSet<usize> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from];
        while let Some(n) = stack.pop() {
            for &next in graph.get(&n).map(|m| m.keys()).into_iter().flatten() {
                if seen.insert(next) {
                    stack.push(next);
                }
            }
        }
        seen
    };
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for &n in &nodes {
        if done.contains(&n) || !reach(n).contains(&n) {
            continue;
        }
        // A shortest way back to n (breadth first), as the cycle to report.
        let mut prev: BTreeMap<usize, usize> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([n]);
        'bfs: while let Some(cur) = queue.pop_front() {
            for &next in graph.get(&cur).map(|m| m.keys()).into_iter().flatten() {
                if next == n {
                    prev.insert(n, cur);
                    break 'bfs;
                }
                if let std::collections::btree_map::Entry::Vacant(e) = prev.entry(next) {
                    e.insert(cur);
                    queue.push_back(next);
                }
            }
        }
        let mut cycle = vec![n];
        let mut cur = prev[&n];
        while cur != n {
            cycle.push(cur);
            cur = prev[&cur];
        }
        cycle.push(n);
        cycle.reverse();
        let component: BTreeSet<usize> = reach(n).into_iter().filter(|m| reach(*m).contains(&n)).collect();
        done.extend(component.iter().copied());
        out.push((cycle, component));
    }
    out
}

/// The crate root's rooms by floor: a room stands above every room it uses.
fn layers(krate: &Crate, edges: &Edges) -> Vec<(usize, Vec<String>)> {
    let rooms: Vec<usize> = krate.modules[0].children.values().copied().collect();
    let mut uses: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for &(from, to) in edges.keys() {
        if let (Some(a), Some(b)) = (room_of(krate, from, 0), room_of(krate, to, 0)) {
            if a != b && a != 0 && b != 0 {
                uses.entry(a).or_default().insert(b);
            }
        }
    }
    let mut floor: BTreeMap<usize, usize> = BTreeMap::new();
    /// Called only on a crate without circles, so the recursion ends.
    fn floor_of(
        room: usize,
        uses: &BTreeMap<usize, BTreeSet<usize>>,
        floor: &mut BTreeMap<usize, usize>,
    ) -> usize {
        if let Some(&f) = floor.get(&room) {
            return f;
        }
        let f = uses
            .get(&room)
            .map(|deps| {
                deps.iter()
                    .map(|&d| 1 + floor_of(d, uses, floor))
                    .max()
                    .unwrap_or(0)
            })
            .unwrap_or(0);
        floor.insert(room, f);
        f
    }
    let mut by_floor: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for &room in &rooms {
        let f = floor_of(room, &uses, &mut floor);
        let lines = subtree_lines(krate, room);
        by_floor.entry(f).or_default().push(format!(
            "{} ({lines})",
            krate.modules[room].path.last().cloned().unwrap_or_default()
        ));
    }
    by_floor.into_iter().collect()
}

fn subtree_lines(krate: &Crate, module: usize) -> usize {
    krate.modules[module].lines
        + krate.modules[module]
            .children
            .values()
            .map(|&c| subtree_lines(krate, c))
            .sum::<usize>()
}

fn print_room_edges(krate: &Crate, edges: &Edges) {
    let mut rooms: BTreeSet<(String, String)> = BTreeSet::new();
    for &(from, to) in edges.keys() {
        if let (Some(a), Some(b)) = (room_of(krate, from, 0), room_of(krate, to, 0)) {
            if a != b {
                rooms.insert((name(krate, a), name(krate, b)));
            }
        }
    }
    for (a, b) in rooms {
        println!("    {a} → {b}");
    }
}

fn print_tree(krate: &Crate, module: usize, indent: usize) {
    let m = &krate.modules[module];
    let label = m.path.last().cloned().unwrap_or_else(|| "crate".into());
    let suffix = if m.children.is_empty() { "" } else { "/" };
    println!(
        "{}{label}{suffix} {} lines",
        "  ".repeat(indent),
        subtree_lines(krate, module)
    );
    for &child in m.children.values() {
        print_tree(krate, child, indent + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crate of `files` (path → text) in a fresh directory: its circles.
    fn circles_of(files: &[(&str, &str)]) -> Vec<String> {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("module-check-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let file = dir.join(path);
            std::fs::create_dir_all(file.parent().expect("parent")).expect("dir");
            std::fs::write(&file, text).expect("write");
        }
        let root = ["lib.rs", "main.rs"]
            .map(|f| dir.join(f))
            .into_iter()
            .find(|p| p.exists())
            .expect("root");
        let krate = load("t", &root).expect("load");
        let found = check(&krate, &edges(&krate));
        let _ = std::fs::remove_dir_all(&dir);
        found
    }

    #[test]
    fn two_files_that_import_each_other_are_a_circle() {
        let found = circles_of(&[
            ("lib.rs", "mod a;\nmod b;\n"),
            ("a.rs", "pub fn x() { crate::b::y() }\n"),
            ("b.rs", "use crate::a;\npub fn y() {}\npub fn z() { a::x() }\n"),
        ]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].contains("crate::a") && found[0].contains("crate::b"),
            "{found:?}"
        );
    }

    #[test]
    fn arrows_one_way_through_a_reexport_are_no_circle() {
        let found = circles_of(&[
            (
                "lib.rs",
                "pub mod low;\npub mod high;\npub use low::item::Thing;\n",
            ),
            ("low/mod.rs", "pub mod item;\npub use item::Thing;\n"),
            ("low/item.rs", "pub struct Thing;\n"),
            (
                "high.rs",
                "use crate::Thing;\npub fn f(_: Thing) { let _ = crate::low::Thing; }\n",
            ),
        ]);
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn rooms_that_use_each_other_are_a_circle_whatever_their_files() {
        // No two files import each other, but room `a` uses room `b` and back.
        let found = circles_of(&[
            ("lib.rs", "mod a;\nmod b;\n"),
            ("a/mod.rs", "pub mod one;\npub mod two;\n"),
            ("a/one.rs", "pub fn f() { crate::b::one::g() }\n"),
            ("a/two.rs", "pub fn h() {}\n"),
            ("b/mod.rs", "pub mod one;\n"),
            (
                "b/one.rs",
                "pub fn g() {}\npub fn k() { super::super::a::two::h() }\n",
            ),
        ]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("crate::a → crate::b"), "{found:?}");
    }

    #[test]
    fn a_parent_using_a_child_that_uses_it_back_is_a_circle() {
        let found = circles_of(&[
            ("lib.rs", "mod room;\n"),
            (
                "room/mod.rs",
                "mod part;\npub struct Shared;\npub fn run() { part::go() }\n",
            ),
            ("room/part.rs", "pub fn go() { let _ = super::Shared; }\n"),
        ]);
        assert_eq!(found.len(), 1, "{found:?}");
    }

    #[test]
    fn visibilities_are_not_uses() {
        let found = circles_of(&[
            ("main.rs", "mod a;\nfn main() { a::f() }\n"),
            ("a.rs", "pub(crate) fn f() {}\npub(super) fn g() {}\n"),
        ]);
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn paths_in_macro_bodies_count() {
        let found = circles_of(&[
            ("lib.rs", "mod a;\nmod b;\n"),
            ("a.rs", "pub fn x() { println!(\"{}\", crate::b::Y) }\n"),
            ("b.rs", "pub const Y: u8 = 1;\npub fn z() { crate::a::x() }\n"),
        ]);
        assert_eq!(found.len(), 1, "{found:?}");
    }
}
