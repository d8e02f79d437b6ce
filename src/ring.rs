//! The fixed-capacity tail ring: the last `capacity` bytes of a stream.
//!
//! It never holds more than its capacity and allocates only as bytes
//! arrive, so a huge `--tail` costs nothing on small input. It knows nothing
//! about lines or UTF-8; the capper decides where cuts land.

/// Keeps the most recent `capacity` bytes pushed into it.
///
/// 1. Until the buffer is full, bytes are appended.
/// 2. Once full, `start` marks the oldest byte; new bytes overwrite from
///    there and `start` moves on, wrapping at the end.
/// 3. A push at least as long as the capacity replaces everything with its
///    own last `capacity` bytes in one copy.
pub struct TailRing {
    buf: Vec<u8>,
    capacity: usize,
    start: usize,
}

impl TailRing {
    pub fn new(capacity: usize) -> TailRing {
        TailRing {
            buf: Vec::new(),
            capacity,
            start: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.buf.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    pub fn push(&mut self, mut data: &[u8]) {
        if data.len() >= self.capacity {
            self.buf.clear();
            self.buf
                .extend_from_slice(&data[data.len() - self.capacity..]);
            self.start = 0;
            return;
        }
        let room = self.capacity - self.buf.len();
        if room > 0 {
            let appended = room.min(data.len());
            self.buf.extend_from_slice(&data[..appended]);
            data = &data[appended..];
        }
        while !data.is_empty() {
            let run = (self.capacity - self.start).min(data.len());
            self.buf[self.start..self.start + run].copy_from_slice(&data[..run]);
            self.start = (self.start + run) % self.capacity;
            data = &data[run..];
        }
    }

    /// The bytes in stream order, as one vector (rotated in place).
    pub fn into_vec(mut self) -> Vec<u8> {
        self.buf.rotate_left(self.start);
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The obviously right version: keep everything, slice the end.
    fn naive_tail(input: &[u8], capacity: usize) -> &[u8] {
        &input[input.len().saturating_sub(capacity)..]
    }

    #[test]
    fn matches_naive_tail_for_every_capacity_and_chunking() {
        let input: Vec<u8> = (0..97u8).collect();
        for capacity in 0..=40 {
            for chunk in 1..=45 {
                let mut ring = TailRing::new(capacity);
                for piece in input.chunks(chunk) {
                    ring.push(piece);
                }
                assert_eq!(
                    ring.into_vec(),
                    naive_tail(&input, capacity),
                    "cap {capacity} chunk {chunk}"
                );
            }
        }
    }

    #[test]
    fn empty_pushes_change_nothing() {
        let mut ring = TailRing::new(3);
        ring.push(b"");
        ring.push(b"ab");
        ring.push(b"");
        assert_eq!(ring.len(), 2);
        assert_eq!(ring.into_vec(), b"ab");
    }
}
