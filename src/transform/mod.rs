//! The stage before the capper: transforms that clean the stream (strip
//! escape codes, collapse `\r` redraws, squeeze repeats, ...) between the
//! spill tee, which saves the raw bytes, and the capper, which caps the
//! cleaned ones.
//!
//! Each transform consumes chunks as they arrive and emits its output into
//! a buffer, so transforms chain and chunk edges are theirs to handle. The
//! stage with no transforms hands chunks straight on, at no cost.

/// One cleaning step of the stream.
pub(crate) trait Transform {
    /// Consumes `input` and appends what it emits so far to `out`.
    fn push(&mut self, input: &[u8], out: &mut Vec<u8>);
    /// The stream ended: appends whatever was held back.
    fn finish(&mut self, out: &mut Vec<u8>);
}

/// The transforms of one stream, in order.
#[derive(Default)]
pub(crate) struct Stage {
    transforms: Vec<Box<dyn Transform + Send>>,
    /// Two reused buffers: one transform's output is the next one's input.
    passed: Vec<u8>,
    emitted: Vec<u8>,
}

impl Stage {
    /// Runs `chunk` through every transform and hands the result on.
    pub(crate) fn push(&mut self, chunk: &[u8], next: impl FnMut(&[u8])) {
        self.run(Some(chunk), next);
    }

    /// Ends the stream: flushes what the transforms held back, in order.
    pub(crate) fn finish(&mut self, next: impl FnMut(&[u8])) {
        self.run(None, next);
    }

    /// One pass through the chain; `None` is the end of the stream.
    fn run(&mut self, chunk: Option<&[u8]>, mut next: impl FnMut(&[u8])) {
        if self.transforms.is_empty() {
            if let Some(chunk) = chunk {
                next(chunk);
            }
            return;
        }
        let (passed, emitted) = (&mut self.passed, &mut self.emitted);
        for (index, transform) in self.transforms.iter_mut().enumerate() {
            emitted.clear();
            let input: &[u8] = if index == 0 {
                chunk.unwrap_or_default()
            } else {
                passed
            };
            transform.push(input, emitted);
            if chunk.is_none() {
                transform.finish(emitted);
            }
            std::mem::swap(passed, emitted);
        }
        if !passed.is_empty() {
            next(passed);
        }
    }
}
