//! Filter mode: the inputs, in order, as one stream onto stdout. A signal
//! stops the reading, and the capped view of what was read is still
//! printed.

use std::fs::File;
use std::io;

use crate::config::Config;
use crate::error::{Error, Problem};
use crate::options::Plan;
use crate::render::text;
use crate::report::Report;
use crate::sink::Sink;
use crate::source::signals::Interruption;
use crate::source::{CHUNK_SIZE, Flow, Input, Interruptible, pump};
use crate::spill::Spill;
use crate::stream::{Printed, Problems, Stream};
use crate::sys;

pub(super) fn run(config: &Config, plan: Plan, inputs: &[Input]) -> Result<Report, Error> {
    let interruption =
        Interruption::install().map_err(Error::io("cannot install signal handlers"))?;
    let spill = config.spill.as_ref().map(Spill::create);
    let mut output = Printed::new(
        Stream::new(plan, spill),
        Sink::stdout(),
        "stdout",
        config.live,
        config.options.has_header(),
    );
    let mut problems = Problems::default();
    let mut buffer = vec![0; CHUNK_SIZE];
    for input in inputs {
        let mut feed = |chunk: &[u8]| feed(&mut output, chunk);
        let result = match input {
            Input::Stdin => pump(
                &mut Interruptible::new(io::stdin().lock(), &interruption),
                &mut buffer,
                &mut feed,
            ),
            Input::File(path) => File::open(path).and_then(|file| {
                pump(
                    &mut Interruptible::new(file, &interruption),
                    &mut buffer,
                    &mut feed,
                )
            }),
        };
        match result {
            Ok(Flow::Continue) => {}
            Ok(Flow::Stop) => break,
            Err(source) => problems.errors.push(Problem::Input {
                input: input.name(),
                source,
            }),
        }
        if interruption.caught().is_some() {
            break;
        }
    }
    let interrupted_by = interruption.caught();
    let trailer = interrupted_by.map(text::interruption_line);
    let output = output.finish(trailer.as_deref(), &mut problems);
    Ok(Report {
        output,
        stderr: None,
        child: None,
        interrupted_by,
        problems: problems.errors,
        warnings: problems.warnings,
    })
}

/// Feeds a chunk; stops when nobody can read the result any more (stdout
/// failed or its reader left) and no spill file needs the rest.
fn feed<W: io::Write>(output: &mut Printed<W>, chunk: &[u8]) -> Flow {
    output.feed(chunk);
    let output_gone = output.output_failed() || sys::reader_has_gone(io::stdout());
    if output_gone && !output.is_spilling() {
        Flow::Stop
    } else {
        Flow::Continue
    }
}
