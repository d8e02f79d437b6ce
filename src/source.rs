//! Where bytes come from: standard input and files, and the read loop that
//! feeds them to the rest of the pipeline in fixed-size chunks. A child's
//! pipes are read by wrap mode's event loop, in chunks of the same size.

use std::io::{self, Read};
use std::path::PathBuf;

/// Bytes per read: large enough that a 1 GiB input costs under 10,000
/// system calls, small enough to stay in L2 cache while it is counted.
pub const CHUNK_SIZE: usize = 128 * 1024;

/// One input of filter mode, read in command-line order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    Stdin,
    File(PathBuf),
}

/// What the consumer of a chunk wants next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Stop,
}

/// Reads `reader` to its end in fixed-size chunks through one reused buffer,
/// retrying interrupted reads, until the consumer says stop.
pub fn pump(
    reader: &mut impl Read,
    buffer: &mut [u8],
    mut consume: impl FnMut(&[u8]) -> Flow,
) -> io::Result<Flow> {
    loop {
        match reader.read(buffer) {
            Ok(0) => return Ok(Flow::Continue),
            Ok(len) => {
                if consume(&buffer[..len]) == Flow::Stop {
                    return Ok(Flow::Stop);
                }
            }
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
}
