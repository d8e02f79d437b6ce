#![no_main]
//! The SIZE, PCT, COUNT and DURATION parsers and the template parser: no
//! input panics, and every accepted value reads back the same when written
//! out plainly.

use libfuzzer_sys::fuzz_target;
use toolcap::cli::{parse_count, parse_duration, parse_size, parse_size_or_percent};
use toolcap::{Capper, Options, SizeOrPercent};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(size) = parse_size(&text) {
        assert_eq!(parse_size(&size.to_string()), Ok(size), "{text:?}");
    }
    if let Ok(count) = parse_count(&text) {
        assert_eq!(parse_count(&count.to_string()), Ok(count), "{text:?}");
    }
    if let Ok(value) = parse_size_or_percent(&text) {
        let plain = match value {
            SizeOrPercent::Bytes(bytes) => bytes.to_string(),
            SizeOrPercent::Percent(percent) => format!("{percent}%"),
        };
        assert_eq!(parse_size_or_percent(&plain), Ok(value), "{text:?}");
    }
    if let Ok(duration) = parse_duration(&text) {
        let plain = format!("{}ms", duration.as_millis());
        assert_eq!(parse_duration(&plain), Ok(duration), "{text:?}");
    }
    // Templates: refused with a usage error, or rendered without a panic.
    let mut middle = text.len() / 2;
    while !text.is_char_boundary(middle) {
        middle -= 1;
    }
    let (header, marker) = text.split_at(middle);
    let options = Options::new()
        .max(40)
        .header_template(header)
        .marker_template(marker);
    if let Ok(mut capper) = Capper::new(&options) {
        capper.push(&data.repeat(4));
        capper.push(b"\nline\n".repeat(20).as_slice());
        let mut out = Vec::new();
        toolcap::render(&capper.finish(), &mut out).expect("write to a Vec");
    }
});
