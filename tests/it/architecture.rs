//! The layout of the library: every `crate::` path in `src/` names a
//! module of its own room or of one earlier in the flow, as the table
//! under "The flow" in docs/ARCHITECTURE.md orders them. A new module
//! must be placed in that table before it can be imported; an import
//! against the flow fails here with the file and the path that broke it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The order of every room, read from the architecture document.
fn flow_order(document: &str) -> BTreeMap<String, u32> {
    let section = document
        .split("\n## ")
        .find(|section| section.starts_with("The flow"))
        .expect("docs/ARCHITECTURE.md has a section `## The flow`");
    let mut order = BTreeMap::new();
    for row in section.lines().filter(|line| line.starts_with("| ")) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let Ok(rank) = cells[1].parse::<u32>() else {
            continue;
        };
        for name in cells[2].split(", ") {
            let name = name.trim_matches('`');
            assert!(
                order.insert(name.to_owned(), rank).is_none(),
                "{name} is listed twice in the flow table"
            );
        }
    }
    order
}

/// The Rust files under `dir`, depth first, leaving out build output
/// (`fuzz/target/`, where cargo fuzz builds).
fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("the source tree is readable") {
        let path = entry.expect("the source tree is readable").path();
        if path.is_dir() {
            if path.file_name().is_some_and(|name| name == "target") {
                continue;
            }
            rust_files(&path, files);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
}

/// The room of a file below src/: `capture/keep.rs` and `capture.rs`
/// are in `capture`, `lib.rs` is `lib`.
fn room_of(relative: &Path) -> String {
    let first = relative.iter().next().map(|part| part.to_string_lossy());
    first.map_or_else(String::new, |first| {
        first.trim_end_matches(".rs").to_owned()
    })
}

/// The code of a file without its comments (doc links name later rooms
/// freely: they are not imports).
fn code_of(text: &str) -> String {
    text.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .map(|line| match line.find(" // ") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first segment of every path that starts at the crate root:
/// `crate::a::X` and each `crate::{a::X, b}` member. (A path to another
/// room is written from the crate root; `super::` stays inside a room.)
fn root_segments(code: &str) -> Vec<String> {
    let mut segments = Vec::new();
    let ident = |text: &str| -> String {
        text.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    for (at, _) in code.match_indices("crate::") {
        if at > 0 && code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let rest = &code[at + "crate::".len()..];
        match rest.strip_prefix('{') {
            Some(group) => segments.extend(group_members(group).iter().map(|m| ident(m))),
            None => segments.push(ident(rest)),
        }
    }
    segments.retain(|segment| !segment.is_empty() && segment != "self");
    segments
}

/// The members of a `{...}` group whose opening brace is already read.
fn group_members(group: &str) -> Vec<&str> {
    let (mut depth, mut start, mut members) = (0, 0, Vec::new());
    for (at, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                members.push(group[start..at].trim());
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                members.push(group[start..at].trim());
                start = at + 1;
            }
            _ => {}
        }
    }
    members
}

/// What lib.rs re-exports, by the room it comes from: `pub use a::{X, Y}`
/// makes `crate::X` a path into room `a`.
fn reexports(lib: &str) -> BTreeMap<String, String> {
    let mut rooms = BTreeMap::new();
    for statement in code_of(lib).split(';') {
        let Some(path) = statement.trim().strip_prefix("pub use ") else {
            continue;
        };
        let Some((room, items)) = path.split_once("::") else {
            continue;
        };
        let items = items.trim().trim_start_matches('{').trim_end_matches('}');
        for item in items.split(',') {
            let name = item.rsplit("::").next().unwrap_or(item).trim();
            let name = name.rsplit(" as ").next().unwrap_or(name).trim();
            rooms.insert(name.to_owned(), room.trim().to_owned());
        }
    }
    rooms
}

#[test]
fn no_module_imports_a_later_room_of_the_flow() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let document = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md"))
        .expect("docs/ARCHITECTURE.md is readable");
    let order = flow_order(&document);
    let src = root.join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("src/lib.rs is readable");
    let reexported = reexports(&lib);
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();

    let mut against = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).expect("below src/");
        if relative == Path::new("main.rs") {
            continue; // the binary: it sees the library from outside
        }
        let room = room_of(relative);
        let room = room.as_str();
        let Some(&rank) = order.get(room) else {
            against.push(format!(
                "src/{} is in room `{room}`, which the flow table does not list",
                relative.display()
            ));
            continue;
        };
        let code = code_of(&std::fs::read_to_string(file).expect("source is readable"));
        for segment in root_segments(&code) {
            let target = match order.get(&segment) {
                Some(_) => segment.clone(),
                None => match reexported.get(&segment) {
                    Some(target) => target.clone(),
                    None => "lib".to_owned(), // defined at the crate root
                },
            };
            let target_rank = order[target.as_str()];
            if target != room && target_rank > rank {
                against.push(format!(
                    "src/{} (`{room}`, {rank}) uses crate::{segment} (`{target}`, {target_rank})",
                    relative.display()
                ));
            }
        }
    }
    against.dedup();
    assert!(
        against.is_empty(),
        "imports against the flow:\n{}",
        against.join("\n")
    );
}

#[test]
fn every_room_of_the_flow_table_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let document = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md"))
        .expect("docs/ARCHITECTURE.md is readable");
    let src = root.join("src");
    for room in flow_order(&document).keys() {
        let exists = room == "lib"
            || src.join(format!("{room}.rs")).is_file()
            || src.join(room).join("mod.rs").is_file();
        assert!(
            exists,
            "the flow table lists `{room}`, which src/ does not have"
        );
    }
}

/// rustfmt keeps code within 100 columns, but not strings and comments:
/// they are held to it here, in every Rust file of the repository: the
/// library (src/, python/src/, build.rs), the tests (tests/) and the fuzz
/// targets (fuzz/, which a checkout without it simply lacks).
#[test]
fn every_line_of_the_library_tests_and_fuzz_targets_is_within_100_columns() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("build.rs")];
    for dir in ["src", "python/src", "tests"] {
        rust_files(&root.join(dir), &mut files);
    }
    if root.join("fuzz").is_dir() {
        rust_files(&root.join("fuzz"), &mut files);
    }
    files.sort();
    let mut long = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("source is readable");
        for (number, line) in text.lines().enumerate() {
            if line.chars().count() > 100 {
                let relative = file.strip_prefix(root).expect("below the crate");
                long.push(format!("{}:{}", relative.display(), number + 1));
            }
        }
    }
    assert!(
        long.is_empty(),
        "lines over 100 columns:\n{}",
        long.join("\n")
    );
}
