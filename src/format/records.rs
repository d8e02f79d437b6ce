//! What the record formats (`diff`, `csv`) share: a scanner that finds
//! where records start as the stream passes, and the starts kept with
//! memory bounded by the capper's buffers: those in the head buffer's
//! reach, and those in the tail ring's window. What the ring lets go of is
//! the cut middle for sure; the format tallies it and forgets it.

use std::collections::VecDeque;

/// A record of kind `R` that starts at `offset` in the stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Event<R> {
    pub(crate) offset: u64,
    pub(crate) record: R,
}

/// Finds records in a stream pushed in chunks, reporting each once its
/// kind (and, for a diff's file, its name) is known, in the order they
/// start.
pub(crate) trait Scanner {
    type Record;
    fn push(&mut self, chunk: &[u8], found: &mut dyn FnMut(Event<Self::Record>));
    fn finish(&mut self, found: &mut dyn FnMut(Event<Self::Record>));
}

/// The records whose starts the capper's buffers still reach.
#[derive(Debug)]
pub(crate) struct Starts<R> {
    /// The head buffer's capacity: records starting before it stay.
    head_reach: u64,
    /// Records starting within the head buffer's reach.
    pub(crate) head: Vec<Event<R>>,
    /// Records starting in the tail ring (or not yet let go of).
    pub(crate) ring: VecDeque<Event<R>>,
}

impl<R> Starts<R> {
    pub(crate) fn new(head_reach: u64) -> Starts<R> {
        Starts {
            head_reach,
            head: Vec::new(),
            ring: VecDeque::new(),
        }
    }

    pub(crate) fn add(&mut self, event: Event<R>) {
        if event.offset < self.head_reach {
            self.head.push(event);
        } else {
            self.ring.push_back(event);
        }
    }

    /// The ring let go of everything before `evicted_to`: each record that
    /// started there goes to `gone`, in order.
    pub(crate) fn evict(&mut self, evicted_to: u64, mut gone: impl FnMut(Event<R>)) {
        while self
            .ring
            .front()
            .is_some_and(|event| event.offset < evicted_to)
        {
            if let Some(event) = self.ring.pop_front() {
                gone(event);
            }
        }
    }

    /// Every start still reached, in order.
    pub(crate) fn all(&self) -> impl Iterator<Item = &Event<R>> {
        self.head.iter().chain(&self.ring)
    }

    /// The offsets of every start still reached, sorted: the boundaries.
    pub(crate) fn offsets(&self) -> Vec<u64> {
        self.all().map(|event| event.offset).collect()
    }
}
