//! The line assembly that the transforms comparing whole lines share
//! (squeeze, fold): a line cut by a chunk edge is held until it is whole,
//! up to [`MAX_COMPARED`] bytes, and a longer one is passed on as it comes,
//! compared with nothing. The transform sees only whole lines, in a chunk
//! or assembled, and is told when a line is too long.
//!
//! It imports only the transform trait it implements.

use memchr::memchr;

use super::{Emit, Ending, Transform};

/// Lines up to this long are held back to be compared; longer ones are
/// never squeezed or folded.
pub(super) const MAX_COMPARED: usize = 64 * 1024;

/// What a transform that compares whole lines does with them.
pub(super) trait WholeLines {
    /// Handles the lines of `chunk` that begin at `from` or later and end
    /// in it (each with its `\n`); returns where the last of them ends.
    fn lines(&mut self, chunk: &[u8], from: usize, out: &mut dyn Emit) -> usize;

    /// Handles one whole line that arrived over several chunks, or the
    /// stream's last line, which has no `\n`.
    fn line(&mut self, line: &[u8], out: &mut dyn Emit);

    /// The line arriving outgrew [`MAX_COMPARED`]: it ends whatever it
    /// would have been compared with, and goes out as it comes.
    fn too_long(&mut self, out: &mut dyn Emit);

    /// A line that went out as it came has ended.
    fn passed(&mut self) {}

    /// See [`Transform::push_merged`].
    fn merged(&mut self, line: &[u8], lines: u64, out: &mut dyn Emit);

    /// The stream ended, after its last line: emits what was held back.
    fn end(&mut self, out: &mut dyn Emit);

    /// See [`Transform::changed`].
    fn changed(&self) -> bool;
}

/// A [`WholeLines`] transform, with the lines cut by chunk edges put back
/// together.
#[derive(Default)]
pub(crate) struct Assembled<T> {
    inner: T,
    /// The current line, while it arrives.
    partial: Vec<u8>,
    /// The current line outgrew [`MAX_COMPARED`]: passed on as it comes.
    passing: bool,
}

impl<T> Assembled<T> {
    pub(super) fn of(inner: T) -> Assembled<T> {
        Assembled {
            inner,
            partial: Vec::new(),
            passing: false,
        }
    }
}

impl<T: WholeLines> Assembled<T> {
    /// The start of `input` that ends a line begun in an earlier chunk;
    /// returns where the rest begins.
    fn finish_line(&mut self, input: &[u8], out: &mut dyn Emit) -> usize {
        let end = memchr(b'\n', input).map_or(input.len(), |p| p + 1);
        let ends_line = input[..end].last() == Some(&b'\n');
        if self.passing {
            out.bytes(&input[..end]);
            self.passing = !ends_line;
            if ends_line {
                self.inner.passed();
            }
        } else {
            self.partial.extend_from_slice(&input[..end]);
            if ends_line {
                // Taken out and put back: its allocation serves the next.
                let line = std::mem::take(&mut self.partial);
                self.inner.line(&line, out);
                self.partial = line;
                self.partial.clear();
            } else {
                self.pass_if_too_long(out);
            }
        }
        end
    }

    fn pass_if_too_long(&mut self, out: &mut dyn Emit) {
        if self.partial.len() > MAX_COMPARED {
            self.inner.too_long(out);
            out.bytes(&self.partial);
            self.partial.clear();
            self.passing = true;
        }
    }
}

impl<T: WholeLines> Transform for Assembled<T> {
    fn push(&mut self, input: &[u8], out: &mut dyn Emit) {
        let mut at = 0;
        if self.passing || !self.partial.is_empty() {
            at = self.finish_line(input, out);
        }
        let at = self.inner.lines(input, at, out);
        let rest = &input[at..];
        if !rest.is_empty() {
            self.partial.extend_from_slice(rest);
            self.pass_if_too_long(out);
        }
    }

    fn push_merged(&mut self, line: &[u8], lines: u64, out: &mut dyn Emit) {
        self.inner.merged(line, lines, out);
    }

    fn finish(&mut self, _ending: &Ending, out: &mut dyn Emit) {
        if !self.partial.is_empty() {
            let line = std::mem::take(&mut self.partial);
            self.inner.line(&line, out);
        }
        self.inner.end(out);
    }

    fn changed(&self) -> bool {
        self.inner.changed()
    }
}
