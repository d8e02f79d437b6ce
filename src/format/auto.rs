//! `--format auto`: `json` for a document that parses, `diff` for a
//! stream that starts like one, else `text`. Both read the stream from its
//! first byte (the document the raw one, the diff the capped one); each
//! decides for itself whether it applies, the document first.

use super::diff::Diff;
use super::json::Document;
use super::{Capped, Reading, Verdict};

pub(crate) struct Auto {
    document: Box<Document>,
    diff: Box<Diff>,
}

impl Auto {
    pub(crate) fn new(document: Document, diff: Diff) -> Auto {
        Auto {
            document: Box::new(document),
            diff: Box::new(diff),
        }
    }
}

impl Reading for Auto {
    fn raw(&mut self, chunk: &[u8]) {
        self.document.raw(chunk);
    }

    fn capped(&mut self, chunk: &[u8], evicted_to: u64) {
        self.diff.capped(chunk, evicted_to);
    }

    /// The diff's, if the stream starts like one: the cut a document falls
    /// back to.
    fn boundaries(&mut self) -> Option<Vec<u64>> {
        self.diff.boundaries()
    }

    fn finish(self: Box<Self>, capped: Capped<'_>) -> Verdict {
        match self.document.finish(capped) {
            // `auto` says nothing of a stream that is not JSON.
            Verdict::Capped(_) => self.diff.finish(capped),
            document => document,
        }
    }
}
