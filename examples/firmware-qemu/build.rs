//! Puts `memory.x` where cortex-m-rt's `link.x` finds it, and the `device.x` it includes with its
//! `device` feature (empty: the interrupt vectors are in src/vectors.rs, all the default handler).

use std::path::PathBuf;
use std::{env, fs};

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    fs::write(out.join("memory.x"), include_bytes!("memory.x")).expect("write memory.x");
    fs::write(out.join("device.x"), "/* The interrupt vectors: src/vectors.rs. */\n").expect("write device.x");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=memory.x");
    println!("cargo:rerun-if-changed=build.rs");
}
