//! `--format diff`'s marker on real output made here: a `diff -u` and a
//! `git diff` that cleaning shortened (every `@@` line in the middle is
//! still counted), and `git log` with and without `-p`, which the `git`
//! profile cuts too (a file counted once however many commits changed it;
//! no file and no hunk in the middle, the plain marker). Byte-exact.

use std::path::Path;

use crate::common::{Need, TempDir, git, hermetic_git_env, require, toolcap};

/// Runs `toolcap ARGS -- git GIT_ARGS` in `dir` (wrap mode), with git as
/// hermetic as [`git`]'s. Returns toolcap's stdout.
fn toolcap_git(dir: &Path, args: &[&str], git_args: &[&str]) -> Vec<u8> {
    let mut command = toolcap();
    command
        .current_dir(dir)
        .envs(hermetic_git_env(dir))
        .args(args)
        .args(["--", "git"])
        .args(git_args);
    command.assert().success().get_output().stdout.clone()
}

/// A repository of one file, a.txt, changed by 12 commits (3 lines more
/// each time).
fn one_file_history(dir: &Path) {
    git(dir, &["init", "-q"]);
    for commit in 1..=12 {
        let text: String = (1..=commit * 3).map(|i| format!("line {i}\n")).collect();
        std::fs::write(dir.join("a.txt"), text).unwrap();
        git(dir, &["add", "a.txt"]);
        git(dir, &["commit", "-q", "-m", &format!("change {commit}")]);
    }
}

/// The lines of `text`, each with its newline.
fn lines(text: &[u8]) -> Vec<&[u8]> {
    text.split_inclusive(|&b| b == b'\n').collect()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn diff_marker_of_a_folded_diff_u_counts_every_hunk_in_the_middle() {
    if !require(Need::Diff) {
        return;
    }
    // `--fold` leaves a marker line inside each hunk; the hunks after the
    // first used to go uncounted ("1 hunks" for these 3).
    let dir = TempDir::new("diff-fold");
    let old: String = (1..=200).map(|i| format!("item {i}\n")).collect();
    let new: String = (1..=200)
        .map(|i| {
            let changed = [20..=40, 120..=140, 170..=190]
                .iter()
                .any(|r| r.contains(&i));
            format!("{} {i}\n", if changed { "ITEM" } else { "item" })
        })
        .collect();
    std::fs::write(dir.join("a.txt"), old).unwrap();
    std::fs::write(dir.join("b.txt"), new).unwrap();
    let diff = crate::common::command("diff")
        .current_dir(dir.path())
        .args([
            "-u", "--label", "a.txt", "--label", "b.txt", "a.txt", "b.txt",
        ])
        .output()
        .expect("diff runs");
    assert_eq!(diff.status.code(), Some(1), "{}", text(&diff.stderr));
    let spill = dir.join("full.diff");
    let out = toolcap()
        .args(["--fold", "--format", "diff", "--max", "280", "--spill"])
        .arg(&spill)
        .write_stdin(diff.stdout.clone())
        .assert()
        .success();
    let expected = format!(
        "Warning: truncated output (original token count: 167)\n\
         Total output lines: 41\n\
         Cleaned: 1476 raw bytes became 665 bytes\n\
         \n\
         --- a.txt\n\
         +++ b.txt\n\
         [... 535 bytes truncated (lines 3-124): 3 hunks in 1 files: b.txt; \
         full output in {} ...]\n\
         -item 190\n\
         +ITEM 170\n\
         [... 19 similar lines folded (lines 127-145) ...]\n\
         +ITEM 190\n \
         item 191\n \
         item 192\n \
         item 193\n",
        spill.display()
    );
    assert_eq!(text(&out.get_output().stdout), expected);
    assert_eq!(std::fs::read(&spill).unwrap(), diff.stdout);
}

#[test]
fn diff_marker_of_a_squeezed_git_diff_counts_its_hunks_and_cuts_at_them() {
    if !require(Need::Git) {
        return;
    }
    // Four hunks, each with runs of one line that `--clean`'s squeeze
    // shortens (two repeats of it are longer than the marker); the head and
    // the tail keep one whole hunk each.
    const SAME: &str = "the same line of context, long enough to squeeze";
    let dir = TempDir::new("diff-squeeze");
    let version = |changed: bool| -> String {
        (0..200)
            .map(|i| match i % 50 {
                15 if changed => "changed\n".to_string(),
                10..20 => format!("{SAME}\n"),
                _ => format!("line {i}\n"),
            })
            .collect()
    };
    git(dir.path(), &["init", "-q"]);
    std::fs::write(dir.join("a.txt"), version(false)).unwrap();
    git(dir.path(), &["add", "a.txt"]);
    git(dir.path(), &["commit", "-q", "-m", "start"]);
    std::fs::write(dir.join("a.txt"), version(true)).unwrap();
    let out = toolcap_git(
        dir.path(),
        &["--max", "900", "--clean", "--profile", "auto"],
        &["diff"],
    );
    let hunk = |at: u32| {
        format!(
            "@@ -{at},7 +{at},7 @@ {SAME}\n {SAME}\n\
             [... previous line repeated 2 more times ...]\n\
             -{SAME}\n+changed\n {SAME}\n[... previous line repeated 2 more times ...]\n"
        )
    };
    let expected = format!(
        "Warning: truncated output (original token count: 340)\n\
         Total output lines: 32\n\
         Cleaned: 1789 raw bytes became 1357 bytes (profile git)\n\
         \n\
         diff --git a/a.txt b/a.txt\n\
         index 163c205..91c5c48 100644\n\
         --- a/a.txt\n\
         +++ b/a.txt\n\
         {}\
         [... 638 bytes truncated: 2 hunks in 1 files: a.txt ...]\n\
         {}",
        hunk(13),
        hunk(163)
    );
    assert_eq!(text(&out), expected);
}

#[test]
fn git_log_without_patches_gets_the_plain_marker() {
    if !require(Need::Git) {
        return;
    }
    // The `git` profile cuts `git log` as a diff; a middle of commits, no
    // file and no hunk, said ": 0 hunks in 0 files" as if nothing went.
    let dir = TempDir::new("git-log");
    one_file_history(dir.path());
    let log = git(dir.path(), &["log"]);
    let log_lines = lines(&log);
    assert_eq!((log.len(), log_lines.len()), (1526, 71));
    let out = toolcap_git(dir.path(), &["--max", "600", "--profile", "auto"], &["log"]);
    let expected = format!(
        "Warning: truncated output (original token count: 382)\n\
         Total output lines: 71\n\
         \n\
         {}[... 1002 bytes truncated ...]\n{}",
        text(&log_lines[..12].concat()),
        text(&log_lines[57..].concat())
    );
    assert_eq!(text(&out), expected);
    assert!(text(&log_lines[12..57].concat()).contains("commit "));
}

#[test]
fn git_log_p_of_one_file_names_it_once() {
    if !require(Need::Git) {
        return;
    }
    // Nine commits' diffs of a.txt in the middle: one file, named once
    // ("10 hunks in 11 files: a.txt, a.txt, ..." before).
    let dir = TempDir::new("git-log-p");
    one_file_history(dir.path());
    let log = git(dir.path(), &["log", "-p"]);
    let log_lines = lines(&log);
    assert_eq!((log.len(), log_lines.len()), (3414, 213));
    let out = toolcap_git(
        dir.path(),
        &["--max", "1000", "--profile", "auto"],
        &["log", "-p"],
    );
    // The head ends where commit 11's hunk starts, the tail at commit 2's
    // `diff --git` line.
    assert!(log_lines[28].starts_with(b"@@ "));
    assert!(log_lines[186].starts_with(b"diff --git "));
    let expected = format!(
        "Warning: truncated output (original token count: 854)\n\
         Total output lines: 213\n\
         \n\
         {}[... 2505 bytes truncated: 9 hunks in 1 files: a.txt ...]\n{}",
        text(&log_lines[..28].concat()),
        text(&log_lines[186..].concat())
    );
    assert_eq!(text(&out), expected);
}
