//! Integration tests: the real binary, hermetic (every process a test
//! starts has a HOME, XDG_CONFIG_HOME and XDG_CACHE_HOME of its own and no
//! TOOLCAP_* from the caller's environment: `common::command`), byte-exact.
//! One crate, modules by topic.

mod architecture;
mod ceiling;
mod clean;
mod clean_model;
mod clean_properties;
mod codex_model;
mod common;
mod diff_markers;
mod errors;
mod faults;
mod filter;
mod fold;
mod format_model;
mod formats;
mod hook;
mod interrupt;
mod json_report;
mod live;
mod model;
mod nothing_lost;
mod profiles;
mod program;
mod properties;
mod real_output;
mod real_profiles;
mod redact;
mod show_grep;
mod spec_options;
mod spill;
mod store;
mod store_confined;
mod styles;
mod total;
mod units;
mod verifiers;
mod window;
mod wrap;
