//! toolcap: cap command output at a budget, keeping its head and tail.
//!
//! The data flows one way, and the modules follow it:
//! `source` (stdin, files, a child's pipes) -> `capture` (the capper, with
//! its `ring`) -> `render` (header, marker) -> `sink` (stdout), with `spill`
//! teeing every input byte to a file. `stream` joins them for one stream;
//! `filter` and `wrap` drive one or two streams. `config` is the plain
//! configuration they share; argument parsing lives in the binary.
//!
//! A Rust agent harness can use the core directly: push chunks into a
//! [`capture::Capper`], then [`render::write_capped`] its [`capture::Capture`].

pub mod capture;
pub mod config;
mod filter;
pub mod render;
pub mod ring;
mod sink;
pub mod size;
pub mod source;
mod spill;
mod stream;
mod wrap;

pub use spill::SpillTarget;
pub use wrap::ChildStatus;

use config::{Config, Mode};

/// What a run came to, for `main` to turn into an exit status.
pub struct Outcome {
    /// Failures that did not stop the run: an unreadable FILE, a spill file
    /// that could not be written, output that could not be written.
    pub problems: Vec<anyhow::Error>,
    /// In wrap mode, how the command ended.
    pub child: Option<ChildStatus>,
}

/// Runs toolcap. An error means toolcap itself could not go on.
pub fn run(config: &Config) -> anyhow::Result<Outcome> {
    match &config.mode {
        Mode::Filter(inputs) => Ok(filter::run(config, inputs)),
        Mode::Wrap(wrap) => wrap::run(config, wrap),
    }
}
