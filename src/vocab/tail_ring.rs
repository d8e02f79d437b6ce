//! The tail queue: a fixed-capacity ring holding the last `capacity` bytes
//! of a stream, which hands every byte it lets go of to an eviction hook:
//! those bytes are the cut middle, where `--keep` will look for lines.
//!
//! It never holds more than its capacity and allocates only as bytes
//! arrive, so a huge `--tail` costs nothing on small input. It knows nothing
//! about lines or UTF-8; the cut rules decide where cuts land.

/// Keeps the most recent `capacity` bytes pushed into it.
///
/// 1. Until the buffer is full, bytes are appended.
/// 2. Once full, `start` marks the oldest byte; new bytes overwrite from
///    there (the overwritten bytes go to the eviction hook first) and
///    `start` moves on, wrapping at the end.
/// 3. A push at least as long as the capacity evicts everything held and
///    all but its own last `capacity` bytes, then keeps those in one copy.
pub(crate) struct TailRing {
    buf: Vec<u8>,
    capacity: usize,
    start: usize,
}

impl TailRing {
    pub(crate) fn new(capacity: usize) -> TailRing {
        TailRing {
            buf: Vec::new(),
            capacity,
            start: 0,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.buf.len()
    }

    /// Appends `data`; the bytes that leave the ring are passed to `evicted`
    /// in stream order (in up to three slices per push).
    pub(crate) fn push(&mut self, mut data: &[u8], mut evicted: impl FnMut(&[u8])) {
        if data.len() >= self.capacity {
            let (newest, oldest) = self.buf.split_at(self.start);
            for part in [oldest, newest, &data[..data.len() - self.capacity]] {
                if !part.is_empty() {
                    evicted(part);
                }
            }
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
            let slot = self.start..self.start + run;
            evicted(&self.buf[slot.clone()]);
            self.buf[slot].copy_from_slice(&data[..run]);
            self.start = (self.start + run) % self.capacity;
            data = &data[run..];
        }
    }

    /// The bytes in stream order, as one vector (rotated in place).
    pub(crate) fn into_vec(mut self) -> Vec<u8> {
        self.buf.rotate_left(self.start);
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_bytes_and_evicts_the_rest_in_order() {
        let input: Vec<u8> = (0..97u8).collect();
        for capacity in 0..=40 {
            for chunk in 1..=45 {
                let mut ring = TailRing::new(capacity);
                let mut evicted = Vec::new();
                for piece in input.chunks(chunk) {
                    ring.push(piece, |gone| evicted.extend_from_slice(gone));
                }
                let kept = ring.into_vec();
                // The obviously right version: keep everything, split the end.
                let split = input.len().saturating_sub(capacity);
                assert_eq!(
                    (&evicted[..], &kept[..]),
                    input.split_at(split),
                    "cap {capacity} chunk {chunk}"
                );
            }
        }
    }

    #[test]
    fn empty_pushes_change_nothing() {
        let mut ring = TailRing::new(3);
        let mut evictions = 0;
        for data in [&b""[..], b"ab", b""] {
            ring.push(data, |_| evictions += 1);
        }
        assert_eq!((ring.len(), evictions), (2, 0));
        assert_eq!(ring.into_vec(), b"ab");
    }
}
