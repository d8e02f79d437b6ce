//! How the toolcap binary is linked, and whether the compiler has
//! AVX-512's intrinsics.
//!
//! Where it can, its relative relocations are packed (DT_RELR, `-z
//! pack-relative-relocs`): the table of addresses that the loader fixes up
//! at every start (in vtables and static tables of pointers) shrinks from
//! 208 KiB to 6 KiB, and peak memory by about 150 KiB, part of what keeps
//! it under the 4 MiB the benchmarks promises.
//!
//! Only where the glibc it is linked against can load them: 2.36 or newer.
//! Against an older one, the linker would still pack them and make the
//! binary require a glibc version that its own machine lacks. So only for
//! Linux with glibc, built for the machine it is built on, whose glibc
//! `getconf` reports; anything unclear means no. A build for an older
//! glibc that these checks cannot see (a cross linker that names the same
//! target) sets `TOOLCAP_PACK_RELOCS=0`. A linker that does not know the
//! option ignores it with a warning. Only the binary: the Python extension
//! is left as it is.

//! AVX-512's intrinsics, which `--redact`'s literal search uses where the
//! CPU has them (`src/sys.rs`), are stable from Rust 1.89; the crate still
//! builds on 1.88 (its `rust-version`), without them: `toolcap_avx512` is
//! set only for a compiler that has them.

use std::env;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=TOOLCAP_PACK_RELOCS");
    println!("cargo:rustc-check-cfg=cfg(toolcap_avx512)");
    if rustc_minor().is_some_and(|minor| minor >= RUST_WITH_AVX512) {
        println!("cargo:rustc-cfg=toolcap_avx512");
    }
    if env::var_os("TOOLCAP_PACK_RELOCS").is_none_or(|value| value != "0") && can_pack_relocations()
    {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// The first Rust 1.x with AVX-512's intrinsics stable.
const RUST_WITH_AVX512: u32 = 89;

/// The compiler's minor version: "rustc 1.89.0 (...)" gives 89.
fn rustc_minor() -> Option<u32> {
    let rustc = env::var_os("RUSTC")?;
    let output = Command::new(rustc).arg("--version").output().ok()?;
    let reported = String::from_utf8_lossy(&output.stdout);
    let version = reported.split_whitespace().nth(1)?;
    version.split('.').nth(1)?.parse().ok()
}

/// The oldest glibc that loads packed relocations.
const GLIBC_WITH_RELR: (u32, u32) = (2, 36);

fn can_pack_relocations() -> bool {
    let var = |key| env::var(key).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") != "linux"
        || var("CARGO_CFG_TARGET_ENV") != "gnu"
        || var("TARGET") != var("HOST")
    {
        return false;
    }
    // "glibc 2.36"
    let Ok(reported) = Command::new("getconf").arg("GNU_LIBC_VERSION").output() else {
        return false;
    };
    let reported = String::from_utf8_lossy(&reported.stdout);
    let Some(version) = reported.trim().strip_prefix("glibc ") else {
        return false;
    };
    let mut numbers = version.split('.').map(str::parse::<u32>);
    match (numbers.next(), numbers.next()) {
        (Some(Ok(major)), Some(Ok(minor))) => (major, minor) >= GLIBC_WITH_RELR,
        _ => false,
    }
}
