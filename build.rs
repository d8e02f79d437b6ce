//! How the toolcap binary is linked.
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

use std::env;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=TOOLCAP_PACK_RELOCS");
    if env::var_os("TOOLCAP_PACK_RELOCS").is_none_or(|value| value != "0") && can_pack_relocations()
    {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
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
