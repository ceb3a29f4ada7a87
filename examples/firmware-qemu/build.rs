//! The build script of every board (`build = "../build.rs"` in the others): puts the board's memory
//! layout where the runtime's `link.x` finds it, as `memory.x`, and for cortex-m-rt the `device.x`
//! its `device` feature includes (empty: the interrupt vectors are in the board's src/vectors.rs,
//! all the default handler).
//!
//! A board's layout is `memory.x` in its directory, except the lm3s6965evb's (this directory's
//! package): `lm3s6965evb.x`. A `memory.x` here, in the workspace root, would be the one the
//! linker finds for every board: it runs here, and looks in its working directory first.

use std::path::PathBuf;
use std::{env, fs};

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let board = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let layout = ["memory.x", "lm3s6965evb.x"].map(|name| board.join(name)).into_iter().find(|path| path.exists());
    let layout = layout.expect("the board's memory.x");
    fs::copy(&layout, out.join("memory.x")).expect("copy the memory layout");
    fs::write(out.join("device.x"), "/* The interrupt vectors: src/vectors.rs. */\n").expect("write device.x");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed={}", layout.display());
}
