//! The words every stage shares, below all of them: running counters, the
//! tail ring, where a line's terminator begins, the UTF-8 cut rule and the
//! wording of markers. Nothing here knows the options or a later stage: it
//! may import only the leaves (`error`, `escape`, `size`, `sys`) and the
//! report's plain facts.

pub(crate) mod counters;
pub(crate) mod lines;
pub(crate) mod marker;
pub(crate) mod tail_ring;
pub(crate) mod utf8;

pub(crate) use counters::Counters;
pub(crate) use lines::split_terminator;
pub(crate) use tail_ring::TailRing;
