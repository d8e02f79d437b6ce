//! How the toolcap binary is linked.
//!
//! On Linux with glibc, its relative relocations are packed (DT_RELR, `-z
//! pack-relative-relocs`): the table of addresses that the loader fixes up
//! at every start (in vtables and static tables of pointers) shrinks from
//! 208 KiB to 6 KiB, and peak memory by about 150 KiB, part of what keeps
//! it under the 4 MiB the README promises. The binary then needs glibc 2.36
//! (2022) or later to run (2.34 without); a linker that does not know the
//! option ignores it with a warning. Only the binary: the Python extension
//! is left as it is.

use std::env;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let target = |key| env::var(key).unwrap_or_default();
    if target("CARGO_CFG_TARGET_OS") == "linux" && target("CARGO_CFG_TARGET_ENV") == "gnu" {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
