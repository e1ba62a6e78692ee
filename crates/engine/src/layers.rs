//! The engine's layers, checked: each top-level module imports only from the modules before it
//! in [`ORDER`], so no import cycle can form. Test code (`tests.rs`, `*_tests.rs`, and a file's
//! text from its first `#[cfg(test)]` on) may import from anywhere.

use std::path::{Path, PathBuf};

/// The top-level modules, lowest first, in their layers.
const ORDER: &[&[&str]] = &[
    // numbers and formats
    &[
        "named",
        "json",
        "exact",
        "decimal",
        "units",
        "dtype",
        "weight_parts",
        "gpus",
        "job",
        "error",
        "formula",
        "gguf",
    ],
    // models
    &[
        "hybrid",
        "model",
        "config",
        "safetensors",
        "hub",
        "llamacpp",
    ],
    // the scenario and its settings
    &["scenario"],
    // memory
    &["server", "sglang", "memory", "repair", "measured"],
    // fit and solver
    &["band", "fit", "local"],
    // codecs, and scenarios drawn for the property tests
    &["link", "strategy"],
];

fn rank(module: &str) -> Option<usize> {
    ORDER
        .iter()
        .flat_map(|l| l.iter())
        .position(|m| *m == module)
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The top-level modules as the source tree has them: a file or a folder beside `lib.rs`.
fn modules() -> Vec<String> {
    let mut found: Vec<String> = std::fs::read_dir(src())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name != "lib.rs" && name != "layers.rs")
        .map(|name| name.trim_end_matches(".rs").to_string())
        .collect();
    found.sort();
    found
}

/// The text of every source file of `module`, up to its tests.
fn code_of(module: &str) -> Vec<(PathBuf, String)> {
    let file = src().join(format!("{module}.rs"));
    let mut files = Vec::new();
    let mut stack = vec![if file.exists() {
        file
    } else {
        src().join(module)
    }];
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            stack.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else if path.extension().is_some_and(|x| x == "rs") && !is_test_file(&path) {
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or("").to_string();
            files.push((path, code));
        }
    }
    files
}

/// `tests.rs` and `*_tests.rs`: a module's unit tests in a file of their own.
fn is_test_file(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n == "tests.rs" || n.ends_with("_tests.rs"))
}

/// The top-level modules a text names after `crate::`, in `crate::a::b` and `crate::{a, b::c}`.
fn imported(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut item_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if item_start && (c.is_alphanumeric() || c == '_') => {
                        item_start = false;
                        names.push(identifier(&group[i..]));
                    }
                    _ => {}
                }
            }
        } else {
            names.push(identifier(rest));
        }
    }
    names
}

fn identifier(text: &str) -> String {
    text.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

#[test]
fn every_module_of_the_engine_has_its_place_in_the_layers() {
    let unplaced: Vec<String> = modules()
        .into_iter()
        .filter(|m| rank(m).is_none())
        .collect();
    assert!(unplaced.is_empty(), "not in ORDER: {unplaced:?}");
}

#[test]
fn every_module_imports_only_from_the_modules_below_it() {
    let mut upward = Vec::new();
    for module in modules() {
        let own = rank(&module).unwrap();
        for (path, code) in code_of(&module) {
            for name in imported(&code) {
                if rank(&name).is_some_and(|r| r > own) {
                    let file = path.strip_prefix(src()).unwrap().display().to_string();
                    upward.push(format!("{file} imports {name}"));
                }
            }
        }
    }
    upward.sort();
    upward.dedup();
    assert!(upward.is_empty(), "imports that reach up: {upward:#?}");
}

#[test]
fn an_import_of_a_module_above_is_found_in_either_form() {
    assert_eq!(imported("use crate::memory::estimate;"), ["memory"]);
    assert_eq!(imported("use crate::{fit::{a, b}, link};"), ["fit", "link"]);
}
