//! What a budget counts, and the token count the header reports.
//!
//! Budgets are counted in bytes today, and the token count is the rule of
//! thumb ceil(bytes / 4). A budget in characters or in real tokens is a new
//! [`Measure`]: the capper asks it how many bytes its buffers must hold and
//! where the longest prefix and suffix within the budget end; the cut rules
//! after that (UTF-8, lines) stay as they are.

/// `--tokens N` is a budget of N * 4 bytes, and the header's token count is
/// ceil(bytes / 4): the usual rule of thumb for English text and code under
/// the tokenizers of current models.
pub(crate) const BYTES_PER_TOKEN: u64 = 4;

/// The header's token count for a stream of `bytes` bytes.
pub(crate) fn approx_tokens(bytes: u64) -> u64 {
    bytes.div_ceil(BYTES_PER_TOKEN)
}

/// The unit a budget is counted in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Measure {
    /// One unit per byte.
    #[default]
    Bytes,
}

impl Measure {
    /// How many bytes can make up `units` units: what the head buffer and
    /// the tail ring must hold.
    pub(crate) fn max_bytes(self, units: u64) -> u64 {
        match self {
            Measure::Bytes => units,
        }
    }

    /// The end of the longest prefix of `bytes` that is at most `units`.
    pub(crate) fn prefix_end(self, bytes: &[u8], units: u64) -> u64 {
        match self {
            Measure::Bytes => units.min(bytes.len() as u64),
        }
    }

    /// The start of the longest suffix of `bytes` that is at most `units`.
    pub(crate) fn suffix_start(self, bytes: &[u8], units: u64) -> u64 {
        match self {
            Measure::Bytes => (bytes.len() as u64).saturating_sub(units),
        }
    }
}
