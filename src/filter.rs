//! Filter mode: the inputs, in order, as one stream onto stdout.

use std::fs::File;
use std::io::{self, BufWriter, Write};

use anyhow::anyhow;

use crate::Outcome;
use crate::config::Config;
use crate::sink::{OUTPUT_BUFFER, Sink, reader_has_gone};
use crate::source::{CHUNK_SIZE, Flow, Input, pump};
use crate::spill::Spill;
use crate::stream::CappedStream;

pub fn run(config: &Config, inputs: &[Input]) -> Outcome {
    let stdout = BufWriter::with_capacity(OUTPUT_BUFFER, io::stdout().lock());
    let spill = config.spill.as_ref().map(Spill::create);
    let mut stream = CappedStream::new(
        config.budget,
        spill,
        Sink::new(stdout),
        config.live,
        config.header,
    );
    let mut problems = Vec::new();
    let mut buffer = vec![0; CHUNK_SIZE];
    for input in inputs {
        let (name, result) = match input {
            Input::Stdin => (
                "stdin".into(),
                pump(&mut io::stdin().lock(), &mut buffer, |chunk| {
                    feed(&mut stream, chunk)
                }),
            ),
            Input::File(path) => (
                path.display().to_string(),
                File::open(path).and_then(|mut file| {
                    pump(&mut file, &mut buffer, |chunk| feed(&mut stream, chunk))
                }),
            ),
        };
        match result {
            Ok(Flow::Continue) => {}
            Ok(Flow::Stop) => break,
            Err(err) => problems.push(anyhow!("{name}: {err}")),
        }
    }
    problems.extend(stream.finish("stdout", None));
    Outcome {
        problems,
        child: None,
    }
}

/// Feeds a chunk; stops when nobody can read the result any more (stdout
/// failed or its reader left) and no spill file needs the rest.
fn feed<W: Write>(stream: &mut CappedStream<W>, chunk: &[u8]) -> Flow {
    stream.feed(chunk);
    let output_gone = stream.output_failed() || reader_has_gone(io::stdout());
    if output_gone && !stream.is_spilling() {
        Flow::Stop
    } else {
        Flow::Continue
    }
}
